// `regolith deps-check`: reads the lockfiles, looks every version up in the package
// insights service (through the adapter's own client: batches, paging, retries), evaluates
// the supply-chain policy over the result and prints the violations. Exit codes: 0 none,
// 1 violations, 2 an error. A progress bar is drawn on stderr when it is a terminal.

import { toJSONText, type Value } from '../../engine/index.js';
import { loadConfig, type ServiceConfig } from '../../plugins/config/index.js';
import { adapterHttpFor } from '../../plugins/adapters/index.js';
import { readInsights, type InsightsSettings } from '../../integrations/package-insights/index.js';
import { registerIntegrations } from '../../integrations/index.js';
import { CLIError, out } from '../io.js';
import { shippedPolicyDir } from '../shipped-policy.js';
import { loadPaths } from '../../runtime/load-paths.js';
import { buildPolicySet, CommandErrors } from '../../runtime/policy-set.js';
import { prepareQuery, runPrepared } from '../../runtime/query.js';
import { asciiTable } from '../result-table.js';
import { command, opt, type OptionsOf } from '../command.js';
import { data, format } from '../flags.js';

const depsCheckCommand = command({
  name: 'deps-check',
  description: 'Check the packages a lockfile names against a supply-chain policy, with data from the package insights service',
  args: [['<lockfile...>', 'package-lock.json, npm-shrinkwrap.json, go.sum, Cargo.lock, requirements*.txt, poetry.lock, Maven coordinate lists, purl lists']],
  flags: [
    opt('--insights-url <url>', 'the package insights service (its base URL)'),
    opt('-c, --config-file <path>', 'a configuration file: its package_insights adapter names the service and credentials'),
    opt('--policy <dir>', 'policy and data files to evaluate instead of the shipped supply-chain policy (must define data.regolith.supply_chain.violations)'),
    data('extra data files (e.g. settings under data.supply_chain); repeatable'),
    format(['pretty', 'json'], 'pretty', 'output format (pretty, json)'),
  ],
  examples: [
    'regolith deps-check --insights-url https://insights.example package-lock.json',
    'regolith deps-check -c regolith.yaml --format json go.sum Cargo.lock',
    'regolith deps-check --insights-url $URL -d settings.json requirements.txt',
    '',
    'Exit codes: 0 no violations, 1 violations, 2 an error (bad lockfile, unreachable service, bad policy).',
  ],
});

type Flags = OptionsOf<typeof depsCheckCommand>;

export interface Violation {
  system: string;
  package: string;
  version: string;
  rule: string;
  message: string;
}

/** The insights service: --insights-url, or the service of the configuration's package_insights adapter. */
function serviceOf(f: Flags): ServiceConfig {
  if (f.insightsUrl && f.configFile) throw new CLIError('give --insights-url or --config-file, not both', 2);
  if (f.insightsUrl) {
    try {
      new URL(f.insightsUrl);
    } catch {
      throw new CLIError(`--insights-url: invalid URL ${JSON.stringify(f.insightsUrl)}`, 2);
    }
    return { name: 'insights', url: f.insightsUrl.replace(/\/+$/, ''), headers: {}, allow_insecure_tls: false, response_header_timeout_seconds: 30, credentials: {} };
  }
  if (!f.configFile) throw new CLIError('name the insights service: --insights-url URL or --config-file with a package_insights adapter', 2);
  let cfg;
  registerIntegrations();
  try {
    cfg = loadConfig({ configFile: f.configFile });
  } catch (e) {
    throw new CLIError((e as Error).message, 2);
  }
  const a = Object.values(cfg.adapters).find((x) => x.type === 'package_insights');
  if (!a?.service) throw new CLIError(`${f.configFile}: no adapter of type package_insights`, 2);
  return cfg.services[a.service]!;
}

function progressBar(): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  return (done, total) => {
    const width = 30;
    const filled = total ? Math.round((done / total) * width) : width;
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} versions${done >= total ? '\n' : ''}`);
  };
}

function render(vs: Violation[], format: string, checked: number): string {
  if (format === 'json') return JSON.stringify({ violations: vs }, null, 2);
  if (!vs.length) return `no violations (${checked} package versions checked)`;
  const rows = vs.map((v) => [`${v.system}/${v.package}@${v.version}`, v.rule, v.message]);
  return asciiTable(['Package', 'Rule', 'Message'], rows) + `${vs.length} violation${vs.length === 1 ? '' : 's'} in ${checked} package versions`;
}

async function depsCheckAction(lockfiles: string[], f: Flags): Promise<void> {
  if (f.format !== 'pretty' && f.format !== 'json') throw new CLIError(`invalid argument "${f.format}" for "--format" flag: must be one of {pretty, json}`, 2);
  const service = serviceOf(f);
  const settings: InsightsSettings = { lockfiles, packages: [], purls: [], requirements: false };
  const http = adapterHttpFor(service);
  let insights;
  try {
    insights = await readInsights(http, settings, progressBar());
  } catch (e) {
    throw new CLIError((e as Error).message, 2);
  }
  let violations: Violation[];
  try {
    const dir = f.policy ?? shippedPolicyDir('supply-chain');
    if (!dir) throw new CLIError('the shipped supply-chain policy was not found: give --policy', 2);
    const loaded = await loadPaths({ paths: [dir, ...f.data] });
    const set = buildPolicySet(loaded);
    const prepared = prepareQuery(set, 'data.regolith.supply_chain.violations', 'v1');
    const data = { ...loaded.data, insights: insights as unknown as Value };
    const results = await runPrepared(prepared, { data });
    const v = results[0]?.expressions[0]?.value;
    if (v === undefined) throw new CLIError('the policy does not define data.regolith.supply_chain.violations', 2);
    violations = (JSON.parse(toJSONText(v)) as Violation[]).sort((a, b) => {
      const ka = `${a.system}/${a.package}@${a.version}/${a.rule}/${a.message}`;
      const kb = `${b.system}/${b.package}@${b.version}/${b.rule}/${b.message}`;
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
  } catch (e) {
    if (e instanceof CLIError) throw e;
    const msg = e instanceof CommandErrors ? e.errors.map((x) => (x.location ? `${x.location.file}:${x.location.row}: ${x.message}` : x.message)).join("\n") : (e as Error).message;
    throw new CLIError(msg, 2);
  }
  out(render(violations, f.format, insights.packages.length));
  if (violations.length) process.exitCode = 1;
}

export default depsCheckCommand.action(depsCheckAction);
