// Package URLs (pkg:type/namespace/name@version?qualifiers#subpath): read, built from a
// version key, and checked for the batch API, which takes versioned purls without
// qualifiers or subpath only.

import { encodeFull } from '../encode.js';
import { PackageListError, type System, type VersionKey } from './types.js';

export interface Purl {
  type: string;
  namespace?: string;
  name: string;
  version?: string;
  qualifiers?: Record<string, string>;
  subpath?: string;
}

const TYPE_OF: Record<System, string> = { GO: 'golang', NPM: 'npm', CARGO: 'cargo', MAVEN: 'maven', PYPI: 'pypi', NUGET: 'nuget' };
const SYSTEM_OF: Record<string, System> = Object.fromEntries(Object.entries(TYPE_OF).map(([s, t]) => [t, s as System]));

const dec = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new PackageListError(`purl component "${s}" is not valid percent-encoding`);
  }
};
/** A purl component: everything but unreserved characters percent-encoded (`:` too, though the spec allows it). */
const enc = encodeFull;

export function parsePurl(s: string): Purl {
  if (!s.startsWith('pkg:')) throw new PackageListError(`"${s}" is not a purl (it must start with pkg:)`);
  let rest = s.slice(4).replace(/^\/+/, '');
  const out: Partial<Purl> = {};
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    out.subpath = rest.slice(hash + 1).split('/').filter((x) => x && x !== '.' && x !== '..').map(dec).join('/');
    rest = rest.slice(0, hash);
  }
  const q = rest.indexOf('?');
  if (q >= 0) {
    out.qualifiers = {};
    for (const kv of rest.slice(q + 1).split('&')) {
      if (!kv) continue;
      const eq = kv.indexOf('=');
      out.qualifiers[kv.slice(0, eq < 0 ? undefined : eq).toLowerCase()] = eq < 0 ? '' : dec(kv.slice(eq + 1));
    }
    rest = rest.slice(0, q);
  }
  const at = rest.lastIndexOf('@');
  const slashBeforeAt = rest.lastIndexOf('/');
  if (at > slashBeforeAt) {
    out.version = dec(rest.slice(at + 1));
    rest = rest.slice(0, at);
  }
  const parts = rest.split('/').filter((x) => x !== '');
  if (parts.length < 2) throw new PackageListError(`"${s}" has no type and name`);
  out.type = parts[0]!.toLowerCase();
  out.name = dec(parts[parts.length - 1]!);
  if (parts.length > 2) out.namespace = parts.slice(1, -1).map(dec).join('/');
  return out as Purl;
}

/** The name the API uses for a purl's package in its system. */
function nameOf(p: Purl, system: System): string {
  if (!p.namespace) return p.name;
  if (system === 'MAVEN') return `${p.namespace}:${p.name}`;
  return `${p.namespace}/${p.name}`;
}

export function versionKeyOfPurl(s: string): VersionKey {
  const p = parsePurl(s);
  const system = SYSTEM_OF[p.type];
  if (!system) throw new PackageListError(`"${s}": purl type "${p.type}" is not one the insights service knows (${Object.keys(SYSTEM_OF).join(', ')})`);
  if (p.version === undefined || p.version === '') throw new PackageListError(`"${s}" has no version`);
  return { system, name: nameOf(p, system), version: p.version };
}

export function purlOf(k: VersionKey): string {
  let namespace: string | undefined;
  let name = k.name;
  if (k.system === 'MAVEN') {
    const i = k.name.indexOf(':');
    if (i >= 0) [namespace, name] = [k.name.slice(0, i), k.name.slice(i + 1)];
  } else if (k.system === 'NPM' || k.system === 'GO') {
    const i = k.name.lastIndexOf('/');
    if (i >= 0) [namespace, name] = [k.name.slice(0, i), k.name.slice(i + 1)];
  }
  const ns = namespace === undefined ? '' : namespace.split('/').map(enc).join('/') + '/';
  return `pkg:${TYPE_OF[k.system]}/${ns}${enc(name)}@${enc(k.version)}`;
}

/** Batch lookups take `pkg:type/[namespace/]name@version` only; anything else fails the whole request. */
export function checkBatchPurl(s: string): void {
  const p = parsePurl(s);
  if (p.qualifiers && Object.keys(p.qualifiers).length) throw new PackageListError(`"${s}" has qualifiers: the batch lookup refuses them`);
  if (p.subpath) throw new PackageListError(`"${s}" has a subpath: the batch lookup refuses it`);
  if (!p.version) throw new PackageListError(`"${s}" has no version: the batch lookup needs one`);
}
