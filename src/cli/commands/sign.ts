// `regolith sign`: writes `.signatures.json` for existing bundles, as `opa sign --bundle`
// does: one JWT whose `files` claim lists every file of the bundle paths with its SHA-256
// digest (JSON and YAML hashed as their canonical form), signed with --signing-key.
// File names follow OPA: inside a .tar.gz the path in the archive; under a directory the
// directory as given joined with the file's path ("foo/bar/data.json" for `sign -b foo`).

import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import {
  BundleError,
  DEFAULT_SIGNING_ALG,
  readBundleEntries,
  signFiles,
  signaturesFileText,
  hashBundleFile,
  SIGNATURES_FILE,
  type FileInfo,
} from '../../bundle/index.js';
import { CLIError } from '../io.js';
import { command, opt, type OptionsOf } from '../command.js';
import { bundleMode } from '../flags.js';
import { signingAlg } from '../verification-flags.js';

const signCommand = command({
  name: 'sign',
  description: 'Generate a bundle signature (.signatures.json)',
  args: [['[paths...]', 'bundle directories or .tar.gz archives (with -b)']],
  flags: [
    bundleMode(),
    opt('--signing-key <key>', 'set the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)'),
    signingAlg(),
    opt('--claims-file <file>', "set path of JSON file containing optional claims (see OPA's signature format)"),
    opt('--signing-plugin <name>', 'not supported: OPA loads signing plugins written in Go; sign with --signing-key'),
    opt('-o, --output-file-path <dir>', 'set the location for the .signatures.json file', '.'),
  ],
  examples: [
    'regolith sign --signing-key private.pem --bundle policies/     # ./.signatures.json',
    'regolith sign --signing-key private.pem -b policies/ -o policies/ && regolith build -b policies/ --verification-key public.pem',
    'regolith sign --signing-key secret --signing-alg HS256 --claims-file claims.json -b bundle.tar.gz',
  ],
});

/** The flags (tests pass only those they need). */
export type SignFlags = Partial<OptionsOf<typeof signCommand>>;

/** OPA's messages for a sign command that cannot start (checked before any file is read). */
export function checkSignFlags(paths: string[], f: SignFlags): void {
  if (paths.length === 0) throw new CLIError('specify atleast one path containing policy and/or data files');
  if (!f.signingKey) throw new CLIError('specify the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)');
  if (!f.bundle) throw new CLIError('enable bundle mode (ie. --bundle) to sign bundle files or directories');
  if (f.signingPlugin) throw new CLIError('--signing-plugin: regolith has no signing plugins (Go plugins of OPA); sign with --signing-key');
}

/** The name OPA's directory loader gives a file: path.Join(dir, file), no leading slash. */
function directoryName(dir: string, rel: string): string {
  return posix.join(dir.replace(/\\/g, '/'), rel).replace(/^\/+/, '');
}

/** The signed file list of the bundle paths, in the order OPA reads them. */
export async function bundleFileInfos(paths: string[]): Promise<FileInfo[]> {
  const files: FileInfo[] = [];
  for (const p of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      throw new CLIError(`stat ${p}: no such file or directory`);
    }
    let entries;
    try {
      entries = await readBundleEntries(p);
    } catch (e) {
      if (e instanceof BundleError) throw new CLIError(`bundle read failed: ${e.message.replace(/^bundle read failed: /, '')}`);
      throw e;
    }
    for (const e of entries) {
      // OPA skips an earlier signatures file wherever it sits.
      if (e.path === SIGNATURES_FILE || e.path.endsWith(`/${SIGNATURES_FILE}`)) continue;
      const name = isDir ? directoryName(p, e.path) : e.path;
      let hash: string;
      try {
        hash = hashBundleFile(name, e.bytes);
      } catch (err) {
        throw new CLIError(`${name}: ${(err as Error).message}`);
      }
      files.push({ name, hash, algorithm: 'SHA-256' });
    }
  }
  return files;
}

function readClaims(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CLIError(`open ${path}: no such file or directory`);
  }
  let claims: unknown;
  try {
    claims = JSON.parse(text);
  } catch (e) {
    throw new CLIError(`${path}: ${(e as Error).message}`);
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) throw new CLIError(`${path}: claims must be a JSON object`);
  return claims as Record<string, unknown>;
}

/** Signs the bundle paths and writes `<output>/.signatures.json`; returns the file's path. */
export async function signBundles(paths: string[], f: SignFlags): Promise<string> {
  checkSignFlags(paths, f);
  const files = await bundleFileInfos(paths);
  const claims = f.claimsFile ? readClaims(f.claimsFile) : undefined;
  let token: string;
  try {
    // As `opa sign`: no key id (kid header or keyid claim) goes into the token.
    token = await signFiles(files, { key: f.signingKey!, algorithm: f.signingAlg ?? DEFAULT_SIGNING_ALG, claims });
  } catch (e) {
    if (e instanceof BundleError || (e as Error).name?.startsWith('JOSE') || (e as { code?: string }).code?.startsWith('ERR_JOSE')) {
      throw new CLIError((e as Error).message);
    }
    throw e;
  }
  const out = join(f.outputFilePath ?? '.', SIGNATURES_FILE);
  try {
    writeFileSync(out, signaturesFileText({ signatures: [token] }));
  } catch (e) {
    throw new CLIError(`open ${out}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
  return out;
}

export default signCommand.action(async (paths, f) => {
  await signBundles(paths, f);
});
