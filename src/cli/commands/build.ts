// `regolith build`: packages policy and data files, or bundle directories and archives
// (-b), into a bundle .tar.gz in OPA's format, optionally verifying signed inputs and
// signing the output (.signatures.json).

import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RegoParseError, parseModule, type RegoErrorDetail } from '../../engine/syntax.js';
import {
  BundleError,
  buildBundle,
  regoVersionForFile,
  writeBundle,
  type Bundle,
  type SigningConfig,
  type VerificationConfig,
} from '../../bundle/index.js';
import { prettyErrors } from '../rego-errors.js';
import { CLIError } from '../io.js';
import { signingAlg, verificationConfig, verificationWithoutSigningAlg } from '../verification-flags.js';
import { command, opt, type OptionsOf } from '../command.js';
import { builtins, bundleMode, capabilities, ignore, refused, v0Compatible, v1Compatible } from '../flags.js';
import { allowedBuiltins } from '../capabilities-flag.js';
import { buildPolicySet, toErrorDetails } from '../../runtime/policy-set.js';
import { loadBuiltinModules } from '../../runtime/custom-builtins.js';

const buildCommand = command({
  name: 'build',
  description: 'Build a bundle',
  args: [['<path...>', 'policy and data files or directories (bundle directories or archives with -b)']],
  flags: [
    opt('-o, --output <file>', 'set the output filename', 'bundle.tar.gz'),
    opt('-r, --revision <revision>', 'set output bundle revision'),
    bundleMode(),
    ignore("set file and directory names to ignore during loading (e.g., '.*' excludes hidden files)"),
    opt('-t, --target <target>', 'set the output bundle target type (only "rego")', 'rego'),
    opt('--signing-key <key>', 'set the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)'),
    signingAlg(),
    opt('--claims-file <file>', "set path of JSON file containing optional claims (see OPA's signature format)"),
    opt('--push <ref>', 'also push the bundle to an OCI registry as host[:port]/repository[:tag], in the layout OPA pulls (services.<name>.type: oci)'),
    opt('--plain-http', 'push over plain HTTP (a registry on loopback)'),
    opt('--registry-user <user>', 'push with Basic credentials; the password comes from REGOLITH_REGISTRY_PASSWORD'),
    opt('--registry-token-file <file>', 'push with the Bearer token in this file (or set REGOLITH_REGISTRY_TOKEN)'),
    v0Compatible(),
    v1Compatible(),
    verificationWithoutSigningAlg(),
    refused('-e, --entrypoint <path>', 'set slash separated entrypoint path (only for -O, wasm and plan: not supported)', () =>
      '--entrypoint is for optimized, wasm and plan bundles, which regolith does not build; drop it (a rego bundle needs no entrypoint)'),
    refused('-O, --optimize <level>', 'set optimization level (only 0)', (v) =>
      v === '0' ? undefined : '-O (optimized bundles) is not supported: regolith builds the modules as written; drop -O (decisions are the same)'),
    capabilities(),
    builtins(),
    opt('--debug', 'enable debug output (the files the bundle is built from, on stderr)'),
    refused('--prune-unused', 'exclude dependents of entrypoints (only with -O: not supported)', () =>
      '--prune-unused only applies to -O optimization, which regolith does not support; drop it'),
    refused('--partial-namespace <ns>', 'set the namespace for partially evaluated files in an optimized bundle (only with -O: not supported)', () =>
      '--partial-namespace only applies to -O optimization, which regolith does not support; drop it'),
    refused('--wasm-include-print', 'enable print statements inside of WebAssembly modules (not supported: no wasm target)', () =>
      '--wasm-include-print is for -t wasm, which regolith does not build (it evaluates Rego directly; print() works in rego bundles); drop it'),
    refused('--follow-symlinks', 'follow symlinks in the input set of paths (not supported)', () =>
      '--follow-symlinks is not supported: regolith build skips symbolic links (as opa build without the flag); pass the directories they point to as paths instead'),
    refused('--signing-plugin <plugin>', 'name of the plugin to use for signing/verification (not supported: OPA plugins are Go)', () =>
      "--signing-plugin is not supported: OPA's signing plugins are Go code; sign with --signing-key and --signing-alg (RS*, PS*, ES*, HS*)"),
  ],
  examples: [
    'regolith build policy.rego data.json              # files → bundle.tar.gz',
    'regolith build -b policies/ -o authz.tar.gz -r v42  # a bundle directory, with a revision',
    'regolith build -b policies/ --signing-key private.pem --signing-alg RS256',
    'regolith build -b policies/ --signing-key secret --signing-alg HS256 --claims-file claims.json',
    'regolith build --ignore "*_test.rego" --ignore ".*" src/',
    'regolith build -b policies/ -r v43 --push ghcr.io/acme/authz:v43   # token in REGOLITH_REGISTRY_TOKEN',
  ],
});

type BuildFlags = OptionsOf<typeof buildCommand>;

function readClaims(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CLIError(`open ${path}: no such file or directory`);
  }
  try {
    const claims = JSON.parse(text) as unknown;
    if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) throw new Error('claims must be a JSON object');
    return claims as Record<string, unknown>;
  } catch (e) {
    throw new CLIError(`${path}: ${(e as Error).message}`);
  }
}

/** Like `opa build`, invalid Rego fails the build (each module in its Rego version). */
function parseModules(bundle: Bundle, fallback: number): void {
  const errors: RegoErrorDetail[] = [];
  for (const m of bundle.modules) {
    const v = regoVersionForFile(bundle.manifest, m.path) ?? fallback;
    try {
      parseModule(m.text, { filename: m.url, regoVersion: v === 0 ? 'v0' : 'v1' });
    } catch (e) {
      if (!(e instanceof RegoParseError)) throw e;
      errors.push(...e.errors);
    }
  }
  if (errors.length) throw new CLIError(prettyErrors(errors));
}

/**
 * As `opa build`, the modules are compiled before the bundle is written (compile errors fail
 * the build), against --capabilities when given: a call to a built-in they do not list is
 * OPA's `rego_type_error: undefined function`.
 */
async function compileModules(bundle: Bundle, f: BuildFlags): Promise<void> {
  const allowed = allowedBuiltins(f.capabilities);
  const modules = bundle.modules.map((m) => {
    const v = regoVersionForFile(bundle.manifest, m.path) ?? (f.v0Compatible ? 0 : 1);
    return { file: m.url, text: m.text, regoVersion: v === 0 ? ('v0' as const) : ('v1' as const) };
  });
  try {
    buildPolicySet({ modules, data: {} }, { builtins: await loadBuiltinModules(f.builtins), allowedBuiltins: allowed });
  } catch (e) {
    throw new CLIError(prettyErrors(toErrorDetails(e)));
  }
}

/** --debug: what goes into the bundle, one line a file (OPA's compiler debug output has no fixed form). */
function debugListing(bundle: Bundle): void {
  for (const m of bundle.modules) process.stderr.write(`module: /${m.path} (${m.url})\n`);
  for (const d of bundle.dataFiles) process.stderr.write(`data: /${d.path} (${d.url})\n`);
  process.stderr.write(`manifest: ${JSON.stringify(bundle.manifest)}\n`);
}

export async function doBuild(paths: string[], f: BuildFlags): Promise<void> {
  if (paths.length === 0) throw new CLIError('expected at least one path');
  if (f.target !== 'rego') throw new CLIError(`unsupported target "${f.target}": regolith builds only the "rego" target (no Wasm or plan: regolith evaluates Rego directly); drop -t and serve the bundle with regolith run`);
  if (!f.signingKey && f.claimsFile) {
    throw new CLIError('specify the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)');
  }
  const signing: SigningConfig | undefined = f.signingKey
    ? {
        key: f.signingKey,
        algorithm: f.signingAlg,
        // As OPA: the key id goes into the token only when no claims file is given.
        ...(f.claimsFile ? { claims: readClaims(f.claimsFile) } : { keyid: f.verificationKeyId }),
      }
    : undefined;
  const verification: VerificationConfig | undefined = verificationConfig(f);
  if ((signing || verification) && !f.bundle) {
    throw new CLIError('enable bundle mode (ie. --bundle) to verify or sign bundle files or directories');
  }
  if (!f.bundle) {
    for (const p of paths) {
      if (existsSync(p) && statSync(p).isDirectory() && existsSync(join(p, '.manifest'))) {
        process.stderr.write(`Warning: .manifest file found in "${p}" but -b flag not specified. Manifest will be ignored.\n`);
      }
    }
  }
  try {
    const bundle = await buildBundle(paths, {
      bundleMode: !!f.bundle,
      ignore: f.ignore,
      revision: f.revision,
      regoVersion: f.v0Compatible ? 0 : 1,
      verification,
    });
    parseModules(bundle, f.v0Compatible ? 0 : 1);
    if (f.debug) debugListing(bundle);
    await compileModules(bundle, f);
    const gz = await writeBundle(bundle, signing);
    writeFileSync(f.output, gz);
    if (f.push) await push(f, gz, bundle.manifest.revision);
  } catch (e) {
    if (e instanceof BundleError) throw new CLIError(e.message);
    throw e;
  }
}

/**
 * --push <ref>: the registry's credentials come from the environment or a file, never from
 * a flag value (it would stay in shell history): REGOLITH_REGISTRY_TOKEN (Bearer),
 * --registry-token-file, or --registry-user with REGOLITH_REGISTRY_PASSWORD (Basic).
 */
async function push(f: BuildFlags, archive: Buffer, revision: string | undefined): Promise<void> {
  const { parseReference, OciError } = await import('../../plugins/services/oci.js');
  const { pushBundle } = await import('../../plugins/bundle/oci-push.js');
  const { ServiceClient } = await import('../../plugins/services/client.js');
  let ref;
  try {
    ref = parseReference(f.push!);
  } catch (e) {
    throw new CLIError(`--push: ${(e as Error).message}`);
  }
  if (!ref.registry) throw new CLIError(`--push: ${JSON.stringify(f.push)} names no registry (host[:port]/repository[:tag])`);
  let bearer: { token: string; scheme: string } | undefined;
  if (f.registryUser !== undefined) {
    const password = process.env['REGOLITH_REGISTRY_PASSWORD'];
    if (password === undefined) throw new CLIError('--registry-user needs the password in REGOLITH_REGISTRY_PASSWORD');
    bearer = { token: Buffer.from(`${f.registryUser}:${password}`).toString('base64'), scheme: 'Basic' };
  } else if (f.registryTokenFile !== undefined) {
    try {
      bearer = { token: readFileSync(f.registryTokenFile, 'utf8').trim(), scheme: 'Bearer' };
    } catch (e) {
      throw new CLIError(`--registry-token-file: ${(e as Error).message}`);
    }
  } else if (process.env['REGOLITH_REGISTRY_TOKEN']) bearer = { token: process.env['REGOLITH_REGISTRY_TOKEN'], scheme: 'Bearer' };
  const url = `${f.plainHttp ? 'http' : 'https'}://${ref.registry}`;
  const client = new ServiceClient({ name: 'registry', url, type: 'oci', headers: {}, allow_insecure_tls: false, response_header_timeout_seconds: 30, credentials: bearer ? { bearer } : {} });
  try {
    const pushed = await pushBundle(client, f.push!, archive, revision);
    process.stdout.write(`pushed ${pushed.reference}@${pushed.digest}\n`);
  } catch (e) {
    if (e instanceof OciError || (e as Error).name === 'ServiceRequestError') throw new CLIError(`push ${f.push}: ${(e as Error).message}`);
    throw e;
  }
}

export default buildCommand.action(doBuild);
