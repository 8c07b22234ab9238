// `regolith check`: parses and compiles every Rego file under the given paths and reports
// errors in OPA's format (exit 1 when there are any). `--strict` turns on OPA's strict
// mode (unused imports, args and `:=` vars; v1 checks for v0 modules too).

import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RegoParseError, parseModule, type Module, type RegoErrorDetail } from '../../engine/syntax.js';
import { compile, CustomBuiltins, RegoCompileError } from '../../engine/index.js';
import { readBundleEntries } from '../../bundle/index.js';
import { globMatch } from '../../bundle/verify.js';
import { CLIError } from '../io.js';
import { jsonErrors, prettyErrors } from '../rego-errors.js';
import { command, opt, type OptionsOf } from '../command.js';
import { builtins, bundleMode, capabilities, format, ignore, refused, schema, strict, v0Compatible, v1Compatible } from '../flags.js';
import { loadBuiltinModules } from '../../runtime/custom-builtins.js';
import { capabilityOptions } from '../capabilities-flag.js';
import { schemaOptions } from '../schema-flag.js';

const checkCommand = command({
  name: 'check',
  description: 'Check Rego source files',
  args: [['<path...>', 'Rego files or directories (bundles with -b)']],
  flags: [
    format(['pretty', 'json'], 'pretty', 'set output format (pretty, json)'),
    bundleMode(),
    strict(),
    opt('-m, --max-errors <n>', 'set the number of errors to allow before compilation fails early (0 for no limit)', '10'),
    ignore(),
    v0Compatible(),
    v1Compatible(),
    opt('--v0-v1', 'check for Rego v0 and v1 compatibility (policies must be compatible with both Rego versions)'),
    builtins(),
    capabilities(),
    schema(),
    refused('-t, --target <target>', 'set the runtime to exercise (only rego)', (v) =>
      v === 'rego' ? undefined : `--target ${String(v)} is not supported: regolith checks Rego for its own evaluator (no Wasm); drop -t or use -t rego`),
  ],
  examples: ['regolith check policies/', 'regolith check --strict --format json policy.rego', 'regolith check -b bundle.tar.gz'],
});

interface Source {
  file: string;
  text: string;
  /** Rego version from a bundle manifest, when the file came from one. */
  version?: 'v0' | 'v1';
}

function regoFiles(path: string, ignore: string[]): Source[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new CLIError(`stat ${path}: no such file or directory`);
  }
  if (!st.isDirectory()) return [{ file: path, text: readFileSync(path, 'utf8') }];
  const out: Source[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (ignore.some((p) => globMatch(p, name))) continue;
      const full = join(dir, name);
      const s = lstatSync(full);
      if (s.isDirectory()) walk(full);
      else if (s.isFile() && name.endsWith('.rego')) out.push({ file: full, text: readFileSync(full, 'utf8') });
    }
  };
  walk(path);
  return out;
}

async function bundleFiles(path: string): Promise<Source[]> {
  const entries = await readBundleEntries(path);
  const manifest = entries.find((e) => e.path === '.manifest');
  let version: 'v0' | 'v1' | undefined;
  if (manifest) {
    const v = (JSON.parse(Buffer.from(manifest.bytes).toString('utf8')) as { rego_version?: number }).rego_version;
    if (v === 0) version = 'v0';
    else if (v === 1) version = 'v1';
  }
  return entries
    .filter((e) => e.path.endsWith('.rego'))
    .map((e) => ({ file: statSync(path).isDirectory() ? join(path, e.path) : '/' + e.path, text: Buffer.from(e.bytes).toString('utf8'), version }));
}

async function checkAction(paths: string[], opts: OptionsOf<typeof checkCommand>): Promise<void> {
  if (opts.format !== 'pretty' && opts.format !== 'json') throw new CLIError(`invalid output format "${opts.format}" (pretty, json)`);
  const max = Number(opts.maxErrors);
  if (!Number.isInteger(max) || max < 0) throw new CLIError(`invalid --max-errors value "${opts.maxErrors}"`);
  const sources: Source[] = [];
  for (const p of paths) sources.push(...(opts.bundle ? await bundleFiles(p) : regoFiles(p, opts.ignore)));
  const custom = new CustomBuiltins(await loadBuiltinModules(opts.builtins));
  const caps = capabilityOptions(opts.capabilities);
  const schemaOpts = schemaOptions(opts.schema);
  const errors: RegoErrorDetail[] = [];
  const fallback = opts.v0Compatible ? 'v0' : 'v1';
  const modules: Module[] = [];
  for (const s of sources) {
    try {
      modules.push(parseModule(s.text, { filename: s.file, regoVersion: opts.v0Compatible ? 'v0' : (s.version ?? fallback) }));
      // --v0-v1: the module must read the same as v0 too (v1 keywords only with import rego.v1)
      if (opts.v0V1) parseModule(s.text, { filename: s.file, regoVersion: 'v0' });
    } catch (e) {
      if (!(e instanceof RegoParseError)) throw e;
      errors.push(...e.errors);
    }
  }
  // As opa check: compile only what parsed cleanly, stopping at the compiler's error limit.
  let compiled = false;
  if (errors.length === 0) {
    try {
      compile(modules, { strict: !!opts.strict, builtins: custom.size ? custom : undefined, ...caps, ...schemaOpts });
    } catch (e) {
      if (!(e instanceof RegoCompileError)) throw e;
      errors.push(...e.errors);
      compiled = true;
    }
  }
  if (errors.length === 0) return;
  let shown = max > 0 && errors.length > max ? errors.slice(0, max) : errors;
  if (compiled && shown.length < errors.length) shown = [...shown, { code: 'rego_compile_error', message: 'error limit reached' }];
  process.stderr.write((opts.format === 'json' ? jsonErrors(shown) : prettyErrors(shown)) + '\n');
  throw new CLIError('');
}

export default checkCommand.action(checkAction);
