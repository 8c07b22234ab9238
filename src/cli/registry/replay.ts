// `regolith replay`: its flags and help; the action is in ../commands/replay.ts and is
// loaded only when the subcommand runs.

import type { Command } from 'commander';
import { collectList } from '../options.js';
import { examples } from '../io.js';
import { lazyAction } from './lazy.js';

export function registerReplay(program: Command): Command {
  return program
    .command('replay')
    .description('Replay recorded decisions (decision-log NDJSON) against a candidate policy and report which decisions change')
    .option('-b, --bundle <file>', 'the candidate bundle: a .tar.gz, a bundle directory or an http(s) URL')
    .option('--policy <dir>', 'the candidate as .rego (and data) files instead of a bundle')
    .option('--decisions <file>', 'decision-log events, one JSON object per line; "-" reads stdin')
    .option('-d, --data <path>', 'extra data files for a --policy candidate; repeatable', collectList, [])
    .option('--baseline <bundle>', 'the policy the decisions were recorded under (bundle or directory of .rego files): rules involved are then the changed ones')
    .option('--fail-on-change <kinds>', 'exit 1 when a decision changes in one of these ways: comma list of allow->deny, deny->allow, value, any', 'none')
    .option('--max-changes <n>', 'exit 1 when more than n decisions change')
    .option('--limit <n>', 'replay at most the first n events')
    .option('-f, --format <format>', 'output format (pretty, json)', 'pretty')
    .option('--examples <n>', 'examples shown per kind of change', '3')
    .option('--v0-compatible', 'modules without a rego_version in their manifest are Rego v0')
    .addHelpText(
      'after',
      examples([
        'regolith replay --bundle candidate.tar.gz --decisions events.ndjson',
        'regolith replay --bundle candidate.tar.gz --decisions events.ndjson --fail-on-change allow->deny',
        'regolith replay --policy policies/ --baseline current.tar.gz --decisions - --format json < events.ndjson',
        '',
        'Events of queries (no path), failed decisions and events a mask policy changed are skipped.',
        'Exit codes: 0 within the threshold, 1 threshold crossed, 2 an error (unreadable file, bad bundle, bad flag).',
      ]),
    )
    .action(lazyAction(async () => (await import('../commands/replay.js')).replayAction));
}
