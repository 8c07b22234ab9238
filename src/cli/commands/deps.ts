// `regolith deps <query>`: the base and virtual documents a query depends on, as `opa deps`
// prints them: a table (pretty) or `{"base": [...], "virtual": [...]}` with refs in OPA's
// JSON form (empty lists left out). Policies come from -d files and -b bundles.

import { dependencyJSON, dependencyText, queryDependencies, type Dependencies, type RegoVersion } from '../../engine/index.js';
import { CLIError } from '../io.js';
import { loadPaths } from '../../runtime/load-paths.js';
import { buildPolicySet, prettyErrorText, toErrorDetails } from '../../runtime/policy-set.js';
import { renderTable } from '../table.js';
import { command, type OptionsOf } from '../command.js';
import { bundlePaths, data, format, ignore, v0Compatible, v1Compatible } from '../flags.js';

export const DEPS_FORMATS = ['pretty', 'json'];

const depsCommand = command({
  name: 'deps',
  description: 'Analyze Rego query dependencies',
  args: [['[query...]', 'the query (exactly one)']],
  flags: [ignore(), data(), bundlePaths(), format(DEPS_FORMATS, 'pretty'), v0Compatible(), v1Compatible()],
  examples: [
    'regolith deps --data policy.rego data.policy.allow',
    'regolith deps -b bundle/ --format json data.authz.allow',
  ],
});

export type DepsFlags = OptionsOf<typeof depsCommand>;

/** The dependencies of the query over the loaded policies; errors in OPA's text. */
export async function dependencies(query: string, f: DepsFlags): Promise<Dependencies> {
  const regoVersion: RegoVersion = f.v0Compatible ? 'v0' : 'v1';
  try {
    const loaded = await loadPaths({ paths: f.data, bundles: f.bundle, ignore: f.ignore, regoVersion });
    const set = buildPolicySet(loaded, { regoVersion });
    return queryDependencies(set.regolith.compile(), query, regoVersion);
  } catch (e) {
    throw new CLIError(prettyErrorText(toErrorDetails(e)));
  }
}

/** OPA's pretty output: one column per kind that has entries, side by side. */
export function renderDependencies(d: Dependencies, format: string): string {
  if (format === 'json') {
    const out: Record<string, unknown> = {};
    if (d.base.length) out.base = d.base.map(dependencyJSON);
    if (d.virtual.length) out.virtual = d.virtual.map(dependencyJSON);
    return JSON.stringify(out, null, 2) + '\n';
  }
  const columns: [string, string[]][] = [];
  if (d.base.length) columns.push(['Base Documents', d.base.map(dependencyText)]);
  if (d.virtual.length) columns.push(['Virtual Documents', d.virtual.map(dependencyText)]);
  if (!columns.length) return '';
  const rows = Math.max(...columns.map(([, c]) => c.length));
  return renderTable(
    columns.map(([h]) => h),
    Array.from({ length: rows }, (_, i) => columns.map(([, c]) => c[i] ?? '')),
  );
}

export async function depsAction(args: string[], f: DepsFlags): Promise<void> {
  if (args.length !== 1) throw new CLIError('specify exactly one query argument');
  if (!DEPS_FORMATS.includes(f.format)) throw new CLIError(`invalid argument "${f.format}" for "-f, --format" flag: must be one of {${DEPS_FORMATS.join(', ')}}`);
  process.stdout.write(renderDependencies(await dependencies(args[0]!, f), f.format));
}

export default depsCommand.action(depsAction);
