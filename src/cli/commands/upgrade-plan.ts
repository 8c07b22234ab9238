// `regolith upgrade-plan`: rewrites a 1.2 overrides file to the 1.3.6 keys (comments kept)
// and prints the ordered, numbered upgrade plan with the control tool's commands. The
// rewritten file goes to --out FILE, or replaces the file with --write (the original kept
// as FILE.bak); without either it is printed after the plan. Exit codes: 0 done, 2 an error.

import { copyFileSync, writeFileSync } from 'node:fs';
import { CLIError, out } from '../io.js';
import { planText } from '../../integrations/runtime-upgrade/plan.js';
import { readYaml, readText, YamlFileError, parseYaml } from '../../integrations/runtime-upgrade/read-yaml.js';
import { OverridesError, rewriteOverrides } from '../../integrations/runtime-upgrade/rewrite-overrides.js';

interface Flags {
  out?: string;
  write?: boolean;
  ctl: string;
  cluster?: string;
  orchestratorVersion?: string;
  demo?: boolean;
  allEnvs?: boolean;
  mgmtUrl?: string;
  instanceId?: string;
  watcherSa?: string;
  metricsSa?: string;
  connectAgentSa?: string;
  seedHost?: string;
  envGroup: string[];
}

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

export async function upgradePlanAction(overridesFile: string, f: Flags): Promise<void> {
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
