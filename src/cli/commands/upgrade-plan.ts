// `regolith upgrade-plan`: rewrites a 1.2 overrides file to the 1.3.6 keys (comments kept)
// and prints the ordered, numbered upgrade plan with the control tool's commands. The
// rewritten file goes to --out FILE, or replaces the file with --write (the original kept
// as FILE.bak); without either it is printed after the plan. Exit codes: 0 done, 2 an error.

import { copyFileSync, writeFileSync } from 'node:fs';
import { CLIError, out } from '../io.js';
import { planText } from '../../integrations/runtime-upgrade/plan.js';
import { readYaml, readText, YamlFileError, parseYaml } from '../../integrations/runtime-upgrade/read-yaml.js';
import { OverridesError, rewriteOverrides } from '../../integrations/runtime-upgrade/rewrite-overrides.js';
import { command, opt, type OptionsOf } from '../command.js';
import { collect } from '../options.js';

const upgradePlanCommand = command({
  name: 'upgrade-plan',
  description: 'Rewrite a 1.2 overrides file to the 1.3.6 keys (comments kept) and print the ordered upgrade plan with its commands',
  args: [['<overrides>', 'the 1.2 overrides file (YAML)']],
  flags: [
    opt('-o, --out <file>', 'write the rewritten overrides file here'),
    opt('-w, --write', 'replace the overrides file (the original is kept as <file>.bak)'),
    opt('--ctl <command>', 'the runtime control tool, as you run it', '<ctl>'),
    opt('--cluster <facts.yaml>', 'cluster facts (orchestrator_version chooses the dry-run flag)'),
    opt('--orchestrator-version <version>', 'the orchestrator CLI version: 1.17 and lower --dry-run=true, 1.18 and higher --dry-run=client'),
    opt('--demo', 'a demo installation: one apply of everything (default: production, one part at a time)'),
    opt('--all-envs', 'production: apply all environments at once (--all-envs) instead of one by one (--env)'),
    opt('--mgmt-url <url>', 'the management API base URL, for the commands of the connect step'),
    opt('--instance-id <id>', 'instanceID to add when absent (at most 63 characters)'),
    opt('--watcher-sa <path>', 'watcher.serviceAccountPath to add when absent'),
    opt('--metrics-sa <path>', 'metrics.serviceAccountPath to add when absent'),
    opt('--connect-agent-sa <path>', 'connectAgent.serviceAccountPath to add when absent (default: the MART account)'),
    opt('--seed-host <address>', 'cassandra.externalSeedHost to add when absent (an existing datastore node)'),
    opt('--env-group <old=group>', 'rename a virtualhosts entry to its environment group; repeatable', collect, [] as string[]),
  ],
  examples: [
    'regolith upgrade-plan --out overrides-1.3.6.yaml --cluster facts.yaml overrides.yaml',
    'regolith upgrade-plan --write --env-group default=prod-group --seed-host 10.0.0.11 --instance-id acme-1 overrides.yaml',
    'regolith upgrade-plan --demo --orchestrator-version 1.17 --ctl ./tool/ctl overrides.yaml',
    '',
    'Keys the tool cannot know are written empty with a TODO comment. A file already on the 1.3.6 keys is left unchanged.',
    'Exit codes: 0 done, 2 an error.',
  ],
});

type Flags = OptionsOf<typeof upgradePlanCommand>;

function groups(pairs: string[]): Record<string, string> {
  const m: Record<string, string> = {};
  for (const p of pairs) {
    const i = p.indexOf('=');
    if (i <= 0 || i === p.length - 1) throw new CLIError(`--env-group ${JSON.stringify(p)}: expected OLD_VIRTUALHOST=ENVIRONMENT_GROUP`, 2);
    m[p.slice(0, i)] = p.slice(i + 1);
  }
  return m;
}

function orchestratorVersion(f: Flags): string | undefined {
  if (f.orchestratorVersion) return f.orchestratorVersion;
  if (!f.cluster) return undefined;
  const facts = readYaml(f.cluster, '--cluster') as { orchestrator_version?: unknown } | null;
  const v = facts?.orchestrator_version;
  return v === undefined || v === null ? undefined : String(v);
}

async function upgradePlanAction(overridesFile: string, f: Flags): Promise<void> {
  if (f.out && f.write) throw new CLIError('give --out FILE or --write, not both', 2);
  if (f.instanceId !== undefined && f.instanceId.length > 63) throw new CLIError(`--instance-id has ${f.instanceId.length} characters: at most 63`, 2);
  let text: string;
  let version: string | undefined;
  let rewritten;
  try {
    text = readText(overridesFile, 'overrides file');
    version = orchestratorVersion(f);
    rewritten = rewriteOverrides(text, {
      instanceId: f.instanceId,
      watcherServiceAccount: f.watcherSa,
      metricsServiceAccount: f.metricsSa,
      connectAgentServiceAccount: f.connectAgentSa,
      seedHost: f.seedHost,
      virtualhostGroups: groups(f.envGroup),
    });
  } catch (e) {
    if (e instanceof YamlFileError) throw new CLIError(e.message, 2);
    if (e instanceof OverridesError) throw new CLIError(`${overridesFile}: ${e.message}`, 2);
    throw e;
  }
  const parsed = parseYaml(rewritten.text, overridesFile) as { org?: unknown; envs?: unknown } | null;
  const envs = Array.isArray(parsed?.envs) ? parsed.envs.map((e: { name?: unknown } | null) => e?.name).filter((n): n is string => typeof n === 'string') : [];
  let written: string | undefined;
  try {
    if (f.out) {
      writeFileSync(f.out, rewritten.text);
      written = f.out;
    } else if (f.write) {
      if (rewritten.text !== text) {
        copyFileSync(overridesFile, `${overridesFile}.bak`);
        writeFileSync(overridesFile, rewritten.text);
      }
      written = overridesFile;
    }
  } catch (e) {
    throw new CLIError(`writing the overrides file: ${(e as Error).message}`, 2);
  }
  out(
    planText({
      ctl: f.ctl,
      overridesFile: written ?? '<overrides_file>',
      org: typeof parsed?.org === 'string' ? parsed.org : undefined,
      envs,
      orchestratorVersion: version,
      production: !f.demo,
      allEnvs: !!f.allEnvs,
      mgmtUrl: f.mgmtUrl,
      changes: rewritten.changes,
      todos: rewritten.todos,
      written,
    }),
  );
  if (!written) out(`\nRewritten overrides file (not saved: give --out FILE or --write):\n\n${rewritten.text}`);
}

export default upgradePlanCommand.action(upgradePlanAction);
