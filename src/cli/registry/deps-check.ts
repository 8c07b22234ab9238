// `regolith deps-check`: its arguments, flags and help; the action is in
// ../commands/deps-check.ts and is loaded only when the subcommand runs.

import type { Command } from 'commander';
import { collectList } from '../options.js';
import { examples } from '../io.js';
import { lazyAction } from './lazy.js';

export function registerDepsCheck(program: Command): Command {
  return program
    .command('deps-check')
    .description('Check the packages a lockfile names against a supply-chain policy, with data from the package insights service')
    .argument('<lockfile...>', 'package-lock.json, npm-shrinkwrap.json, go.sum, Cargo.lock, requirements*.txt, poetry.lock, Maven coordinate lists, purl lists')
    .option('--insights-url <url>', 'the package insights service (its base URL)')
    .option('-c, --config-file <path>', 'a configuration file: its package_insights adapter names the service and credentials')
    .option('--policy <dir>', 'policy and data files to evaluate instead of the shipped supply-chain policy (must define data.regolith.supply_chain.violations)')
    .option('-d, --data <path>', 'extra data files (e.g. settings under data.supply_chain); repeatable', collectList, [])
    .option('-f, --format <format>', 'output format (pretty, json)', 'pretty')
    .addHelpText(
      'after',
      examples([
        'regolith deps-check --insights-url https://insights.example package-lock.json',
        'regolith deps-check -c regolith.yaml --format json go.sum Cargo.lock',
        'regolith deps-check --insights-url $URL -d settings.json requirements.txt',
        '',
        'Exit codes: 0 no violations, 1 violations, 2 an error (bad lockfile, unreachable service, bad policy).',
      ]),
    )
    .action(lazyAction(async () => (await import('../commands/deps-check.js')).depsCheckAction));
}
