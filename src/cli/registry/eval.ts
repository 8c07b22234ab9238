// `regolith eval`: its arguments, flags and help; the action is in ../commands/eval.ts and
// is loaded only when the subcommand runs.

import type { Command } from 'commander';
import { examples } from '../io.js';
import { EVAL_FORMATS, collectList } from '../options.js';
import { lazyAction } from './lazy.js';

export function registerEval(program: Command): Command {
  return program
    .command('eval')
    .description('Evaluate a Rego query')
    .argument('[query]', 'the Rego query to evaluate (e.g. data.authz.allow)')
    .option('-d, --data <path>', 'set policy or data file(s); repeatable; "prefix:path" loads under data.prefix', collectList, [])
    .option('-b, --bundle <path>', 'set bundle file(s) or directory path(s); repeatable', collectList, [])
    .option('-i, --input <file>', 'set input file path (JSON or YAML)')
    .option('-I, --stdin-input', 'read input document from stdin')
    .option('--input-format <format>', 'set the input document\'s format (json, yaml, tombstone: a native crash report protobuf); default: JSON or YAML by its contents')
    .option('--stdin', 'read query from stdin')
    .option('-f, --format <format>', `set output format (${EVAL_FORMATS.join(', ')})`, 'json')
    .option('--fail', 'exits with non-zero exit code on undefined/empty result and errors')
    .option('--fail-defined', 'exits with non-zero exit code on defined/non-empty result and errors')
    .option('--explain <mode>', 'enable query explanations (notes, fails, full, debug)')
    .option('--metrics', 'report query performance metrics')
    .option('-p, --partial', 'perform partial evaluation: print the conditions on the unknowns under which the query holds')
    .option('-u, --unknowns <term>', 'set paths to treat as unknown during partial evaluation; repeatable (default: input)', collectList, [])
    .option('--v0-compatible', 'opt-in to OPA features and behaviors prior to the OPA v1.0 release')
    .option('--v1-compatible', 'opt-in to OPA features and behaviors enabled by default in OPA v1.0 (the default)')
    .option('--strict-builtin-errors', 'treat the first built-in function error encountered as fatal')
    .option('--timeout <duration>', 'set eval timeout (e.g. 5s, 250ms; 0 means no timeout)', '0')
    .option('--ignore <pattern>', 'set file and directory names to ignore during loading', collectList, [])
    .option('--pretty-limit <n>', 'set limit after which pretty output gets truncated', '80')
    .addHelpText(
      'after',
      examples([
        "regolith eval -d policy.rego -d data.json -i input.json 'data.httpapi.authz.allow'",
        "regolith eval -b bundle.tar.gz --format raw 'data.authz.reason'",
        "echo '{\"user\":\"alice\"}' | regolith eval -I -d policies/ --fail 'data.authz.allow'",
        "regolith eval --format pretty 'x := [1, 2, 3][_]'",
        "regolith eval -d filters.rego -i user.json --partial --unknowns input.rows 'data.filters.allow == true'",
        "regolith eval -d policies/crash-triage --input-format tombstone -i crash.pb 'data.regolith.crash_triage.decision'",
      ]),
    )
    .action(lazyAction(() => import('../commands/eval.js').then((m) => m.evalAction)));
}
