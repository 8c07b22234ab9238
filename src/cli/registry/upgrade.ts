// `regolith upgrade-check` and `regolith upgrade-plan` (hybrid runtime upgrade 1.2 ->
// 1.3.6): their arguments, flags and help; the actions are in ../commands/upgrade-*.ts and
// are loaded only when the subcommand runs.

import type { Command } from 'commander';
import { collect } from '../options.js';
import { examples } from '../io.js';
import { lazyAction } from './lazy.js';

export function registerUpgradeCheck(program: Command): Command {
  return program
    .command('upgrade-check')
    .description('Check an overrides file, cluster facts and the organization properties against every step of the runtime upgrade 1.2 -> 1.3.6')
    .argument('<overrides>', 'the overrides file (YAML)')
    .option('--cluster <facts.yaml>', 'cluster facts: platform, versions, mesh deployments and autoscalers (see the README)')
    .option('--mgmt-url <url>', 'the management API ({mgmt_base_url}): the organization is read with GET /v1/organizations/<org>')
    .option('--org <name>', 'the organization (default: org of the overrides file)')
    .option('--token-file <path>', 'a file holding the management API access token (default: $MGMT_TOKEN)')
    .option('--organization <org.json>', 'the organization as the management API returns it, instead of --mgmt-url')
    .option('--policy <dir>', 'policy files to evaluate instead of the shipped one (must define data.regolith.runtime_upgrade.violations)')
    .option('-f, --format <format>', 'output format (pretty, json)', 'pretty')
    .addHelpText(
      'after',
      examples([
        'regolith upgrade-check --cluster facts.yaml --mgmt-url https://mgmt.example --token-file token overrides.yaml',
        'MGMT_TOKEN=$(cat token) regolith upgrade-check --cluster facts.yaml --mgmt-url $URL --org acme overrides.yaml',
        'regolith upgrade-check --cluster facts.yaml --organization org.json --format json overrides.yaml',
        '',
        'Exit codes: 0 ready, 1 violations, 2 an error (unreadable file, refused token, unknown organization).',
      ]),
    )
    .action(lazyAction(async () => (await import('../commands/upgrade-check.js')).upgradeCheckAction));
}

export function registerUpgradePlan(program: Command): Command {
  return program
    .command('upgrade-plan')
    .description('Rewrite a 1.2 overrides file to the 1.3.6 keys (comments kept) and print the ordered upgrade plan with its commands')
    .argument('<overrides>', 'the 1.2 overrides file (YAML)')
    .option('-o, --out <file>', 'write the rewritten overrides file here')
    .option('-w, --write', 'replace the overrides file (the original is kept as <file>.bak)')
    .option('--ctl <command>', 'the runtime control tool, as you run it', '<ctl>')
    .option('--cluster <facts.yaml>', 'cluster facts (orchestrator_version chooses the dry-run flag)')
    .option('--orchestrator-version <version>', 'the orchestrator CLI version: 1.17 and lower --dry-run=true, 1.18 and higher --dry-run=client')
    .option('--demo', 'a demo installation: one apply of everything (default: production, one part at a time)')
    .option('--all-envs', 'production: apply all environments at once (--all-envs) instead of one by one (--env)')
    .option('--mgmt-url <url>', 'the management API base URL, for the commands of the connect step')
    .option('--instance-id <id>', 'instanceID to add when absent (at most 63 characters)')
    .option('--watcher-sa <path>', 'watcher.serviceAccountPath to add when absent')
    .option('--metrics-sa <path>', 'metrics.serviceAccountPath to add when absent')
    .option('--connect-agent-sa <path>', 'connectAgent.serviceAccountPath to add when absent (default: the MART account)')
    .option('--seed-host <address>', 'cassandra.externalSeedHost to add when absent (an existing datastore node)')
    .option('--env-group <old=group>', 'rename a virtualhosts entry to its environment group; repeatable', collect, [])
    .addHelpText(
      'after',
      examples([
        'regolith upgrade-plan --out overrides-1.3.6.yaml --cluster facts.yaml overrides.yaml',
        'regolith upgrade-plan --write --env-group default=prod-group --seed-host 10.0.0.11 --instance-id acme-1 overrides.yaml',
        'regolith upgrade-plan --demo --orchestrator-version 1.17 --ctl ./tool/ctl overrides.yaml',
        '',
        'Keys the tool cannot know are written empty with a TODO comment. A file already on the 1.3.6 keys is left unchanged.',
        'Exit codes: 0 done, 2 an error.',
      ]),
    )
    .action(lazyAction(async () => (await import('../commands/upgrade-plan.js')).upgradePlanAction));
}
