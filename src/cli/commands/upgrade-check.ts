// `regolith upgrade-check`: checks an overrides file, the cluster facts the operator
// collected and the organization's properties (from the management API, or a file) against
// the runtime-upgrade policy (1.2 -> 1.3.6) and prints one line per violation, naming the
// upgrade step. Exit codes: 0 ready, 1 violations, 2 an error.

import { readFileSync } from 'node:fs';
import { toJSONText, type Value } from '../../engine/index.js';
import { CLIError, out } from '../io.js';
import { loadPaths } from '../../runtime/load-paths.js';
import { buildPolicySet, CommandErrors } from '../../runtime/policy-set.js';
import { asciiTable } from '../result-table.js';
import { prepareQuery, runPrepared } from '../../runtime/query.js';
import { fetchOrganization, ManagementApiError, type Organization } from '../../integrations/runtime-upgrade/management-api.js';
import { shippedPolicyDir } from '../shipped-policy.js';
import { readYaml, YamlFileError } from '../../integrations/runtime-upgrade/read-yaml.js';
import { command, opt, type OptionsOf } from '../command.js';
import { format } from '../flags.js';

const upgradeCheckCommand = command({
  name: 'upgrade-check',
  description: 'Check an overrides file, cluster facts and the organization properties against every step of the runtime upgrade 1.2 -> 1.3.6',
  args: [['<overrides>', 'the overrides file (YAML)']],
  flags: [
    opt('--cluster <facts.yaml>', 'cluster facts: platform, versions, mesh deployments and autoscalers (see the README)'),
    opt('--mgmt-url <url>', 'the management API ({mgmt_base_url}): the organization is read with GET /v1/organizations/<org>'),
    opt('--org <name>', 'the organization (default: org of the overrides file)'),
    opt('--token-file <path>', 'a file holding the management API access token (default: $MGMT_TOKEN)'),
    opt('--organization <org.json>', 'the organization as the management API returns it, instead of --mgmt-url'),
    opt('--phase <phase>', 'before (default: the overrides about to be applied) or after the upgrade (externalSeedHost removed, Runtime installation 6)'),
    opt('--policy <dir>', 'policy files to evaluate instead of the shipped one (must define data.regolith.runtime_upgrade.violations)'),
    format(['pretty', 'json'], 'pretty', 'output format (pretty, json)'),
  ],
  examples: [
    'regolith upgrade-check --cluster facts.yaml --mgmt-url https://mgmt.example --token-file token overrides.yaml',
    'MGMT_TOKEN=$(cat token) regolith upgrade-check --cluster facts.yaml --mgmt-url $URL --org acme overrides.yaml',
    'regolith upgrade-check --cluster facts.yaml --organization org.json --format json overrides.yaml',
    '',
    'Exit codes: 0 ready, 1 violations, 2 an error (unreadable file, refused token, unknown organization).',
  ],
});

type Flags = OptionsOf<typeof upgradeCheckCommand>;

export interface UpgradeViolation {
  step: string;
  key: string;
  message: string;
}

const QUERY = 'data.regolith.runtime_upgrade.violations';

/** The upgrade's steps in their order, for sorting violations. */
const STEP_ORDER = [
  'Requirements',
  'Limits',
  'Preparation 1',
  'Preparation 2',
  'Preparation 3',
  'Preparation 4',
  'Preparation 5',
  'Mesh and certificate manager 1',
  'Mesh and certificate manager 2',
  'Mesh and certificate manager 3',
  'Runtime installation 1',
  'Runtime installation 2',
  'Runtime installation 3',
  'Runtime installation 4',
  'Runtime installation 5',
  'Runtime installation 6',
  'Cleanup',
];

function rank(step: string): number {
  const i = STEP_ORDER.indexOf(step);
  return i < 0 ? STEP_ORDER.length : i;
}

function token(f: Flags): string {
  let t: string | undefined;
  if (f.tokenFile) {
    try {
      t = readFileSync(f.tokenFile, 'utf8');
    } catch (e) {
      throw new CLIError(`--token-file ${f.tokenFile}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, 2);
    }
  } else {
    t = process.env.MGMT_TOKEN;
  }
  t = t?.trim();
  if (!t) throw new CLIError('no access token for the management API: give --token-file FILE or set MGMT_TOKEN', 2);
  return t;
}

async function organization(f: Flags, overrides: unknown): Promise<Organization> {
  if (f.organization && f.mgmtUrl) throw new CLIError('give --organization FILE or --mgmt-url URL, not both', 2);
  if (f.organization) {
    const o = readYaml(f.organization, '--organization');
    if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new CLIError(`--organization ${f.organization}: not an organization object`, 2);
    return o as Organization;
  }
  if (!f.mgmtUrl) throw new CLIError('the organization properties are needed: give --mgmt-url URL (with --token-file or MGMT_TOKEN) or --organization org.json', 2);
  const ovOrg = (overrides as { org?: unknown } | null)?.org;
  const org = f.org ?? (typeof ovOrg === 'string' ? ovOrg : undefined);
  if (!org) throw new CLIError('name the organization: --org NAME (the overrides file has no org)', 2);
  return fetchOrganization(f.mgmtUrl, org, token(f));
}

function render(vs: UpgradeViolation[], format: string): string {
  if (format === 'json') return JSON.stringify({ violations: vs }, null, 2);
  if (!vs.length) return 'ready: no violations of the 1.2 -> 1.3.6 upgrade steps';
  return asciiTable(['Step', 'Key', 'Message'], vs.map((v) => [v.step, v.key, v.message])) + `${vs.length} violation${vs.length === 1 ? '' : 's'}: not ready to upgrade`;
}

async function upgradeCheckAction(overridesFile: string, f: Flags): Promise<void> {
  if (f.format !== 'pretty' && f.format !== 'json') throw new CLIError(`invalid argument "${f.format}" for "--format" flag: must be one of {pretty, json}`, 2);
  if (!f.cluster) throw new CLIError('the cluster facts are needed: give --cluster facts.yaml', 2);
  if (f.phase !== undefined && f.phase !== 'before' && f.phase !== 'after') throw new CLIError(`invalid argument "${f.phase}" for "--phase" flag: must be one of {before, after}`, 2);
  let input: Record<string, unknown>;
  try {
    const overrides = readYaml(overridesFile, 'overrides file');
    const cluster = readYaml(f.cluster, '--cluster');
    input = { overrides, cluster, organization: await organization(f, overrides), ...(f.phase ? { phase: f.phase } : {}) };
  } catch (e) {
    if (e instanceof YamlFileError || e instanceof ManagementApiError) throw new CLIError(e.message, 2);
    throw e;
  }
  let violations: UpgradeViolation[];
  try {
    const dir = f.policy ?? shippedPolicyDir('runtime-upgrade');
    if (!dir) throw new CLIError('the shipped runtime-upgrade policy was not found: give --policy', 2);
    const loaded = await loadPaths({ paths: [dir] });
    const set = buildPolicySet(loaded);
    const prepared = prepareQuery(set, QUERY, 'v1');
    const results = await runPrepared(prepared, { input: input as unknown as Value, data: loaded.data });
    const v = results[0]?.expressions[0]?.value;
    if (v === undefined) throw new CLIError(`the policy does not define ${QUERY}`, 2);
    violations = (JSON.parse(toJSONText(v)) as UpgradeViolation[]).sort(
      (a, b) => rank(a.step) - rank(b.step) || a.step.localeCompare(b.step) || a.key.localeCompare(b.key) || a.message.localeCompare(b.message),
    );
  } catch (e) {
    if (e instanceof CLIError) throw e;
    const msg = e instanceof CommandErrors ? e.errors.map((x) => (x.location ? `${x.location.file}:${x.location.row}: ${x.message}` : x.message)).join('\n') : (e as Error).message;
    throw new CLIError(msg, 2);
  }
  out(render(violations, f.format));
  if (violations.length) process.exitCode = 1;
}

export default upgradeCheckCommand.action(upgradeCheckAction);
