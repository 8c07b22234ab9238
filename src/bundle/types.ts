// The shapes of OPA's bundle format: the manifest, module files, signatures and the
// key configuration used to verify or produce them (field names as in OPA's config).

import { newPlainObject, type Value } from '../value/index.js';

export interface WasmResolver {
  entrypoint?: string;
  module?: string;
  annotations?: unknown[];
}

export interface Manifest {
  revision: string;
  /** Absent in the file means [""]: the bundle owns all of `data`. */
  roots?: string[];
  wasm?: WasmResolver[];
  rego_version?: number;
  file_rego_versions?: Record<string, number>;
  metadata?: Record<string, unknown>;
}

export interface ModuleFile {
  /** Path inside the bundle, without a leading slash (e.g. "authz/policy.rego"). */
  path: string;
  /** Where it was read from: the tarball entry name or the file on disk. */
  url: string;
  raw: Uint8Array;
  /** The module's source text. */
  text: string;
  /** `data.`-less package path segments (["httpapi", "authz"]). */
  packagePath: string[];
}

export interface DataFile {
  /** Path inside the bundle, without a leading slash (e.g. "roles/data.json"). */
  path: string;
  url: string;
  /** Key segments under `data` where the document is mounted. */
  key: string[];
}

export interface SignaturesConfig {
  signatures?: string[];
  plugin?: string;
}

export interface FileInfo {
  name: string;
  hash: string;
  algorithm: string;
}

/** The decoded JWT payload of a bundle signature. */
export interface SignaturePayload {
  files: FileInfo[];
  keyid?: string;
  scope?: string;
  iat?: number;
  iss?: string;
  [claim: string]: unknown;
}

export interface Bundle {
  manifest: Manifest;
  /** Whether the bundle contained a .manifest file. */
  hasManifest: boolean;
  /** The merged `data` document of all data files (a plain object). */
  data: { [key: string]: Value };
  dataFiles: DataFile[];
  modules: ModuleFile[];
  /** Wasm modules are carried but never evaluated. */
  wasmModules: { path: string; raw: Uint8Array }[];
  signatures?: SignaturesConfig;
  /** Set when the bundle is a delta bundle (patch.json). */
  patch?: { data: { op: string; path: string; value?: unknown }[] };
  etag?: string;
}

/** A bundle with nothing in it yet (no .manifest file unless the caller says so), to fill in. */
export function emptyBundle(manifest: Manifest = { revision: '' }, hasManifest = false): Bundle {
  return { manifest, hasManifest, data: newPlainObject(), dataFiles: [], modules: [], wasmModules: [] };
}

/** One entry of OPA's `keys` configuration section. */
export interface KeyConfig {
  /** PEM public key or certificate (RS/PS/ES), or the shared secret (HS). */
  key: string;
  /** JWA algorithm; OPA's default is RS256. */
  algorithm?: string;
  scope?: string;
}

/** A bundle's `signing` configuration plus the `keys` it may use. */
export interface VerificationConfig {
  keys: Record<string, KeyConfig>;
  keyid?: string;
  scope?: string;
  exclude_files?: string[];
}

export interface SigningConfig {
  /** PEM private key text, a path to a PEM file, or an HMAC secret. */
  key: string;
  /** JWA algorithm, default RS256. */
  algorithm?: string;
  /** Extra claims for the payload (OPA's --claims-file contents). */
  claims?: Record<string, unknown>;
  /** Written as the JWT `kid` header (and the deprecated `keyid` claim without claims). */
  keyid?: string;
}

/** A bundle problem a user must fix; the message is shown as is. */
export class BundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleError';
  }
}
