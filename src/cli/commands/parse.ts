// `regolith parse`: parses one Rego file and prints its AST, either OPA's JSON form
// (--format json, with --json-include locations) or an indented tree (pretty).

import { readFileSync } from 'node:fs';
import { RegoParseError, moduleToJSON, parseModule } from '../../engine/syntax.js';
import { CLIError, out } from '../io.js';
import { jsonErrors, prettyErrors } from '../rego-errors.js';
import { command, opt } from '../command.js';
import { format, v0Compatible, v1Compatible } from '../flags.js';

const parseCommand = command({
  name: 'parse',
  description: 'Parse Rego source file',
  args: [['<path>', 'a .rego file']],
  flags: [
    format(['pretty', 'json'], 'pretty'),
    opt('--json-include <items>', 'include or exclude optional elements in JSON output: "locations"', ''),
    v0Compatible(),
    v1Compatible(),
  ],
  examples: ['regolith parse policy.rego', 'regolith parse --format json policy.rego', 'regolith parse --format json --json-include locations policy.rego'],
});

/** The name shown for an element of a list, from the list's own name. */
function itemLabel(list: string): string {
  if (list === 'body' || list === 'query') return 'expr';
  if (list === 'path' || list === 'ref' || list === 'args') return '';
  return list.endsWith('s') ? list.slice(0, -1) : list;
}

/** An indented tree of the JSON AST: one node per line, scalars inline. */
function tree(v: unknown, label: string, depth: number, lines: string[]): void {
  const pad = ' '.repeat(depth);
  const head = (s: string): string => `${pad}${label}${label && s ? ' ' : ''}${s}`;
  if (v === null || typeof v !== 'object') {
    lines.push(head(JSON.stringify(v)));
    return;
  }
  if (Array.isArray(v)) {
    lines.push(head(''));
    for (const x of v) tree(x, itemLabel(label), depth + 1, lines);
    return;
  }
  const o = v as Record<string, unknown>;
  // Terms print as their type with the value beneath, like OPA's tree.
  if (typeof o.type === 'string' && 'value' in o && Object.keys(o).every((k) => k === 'type' || k === 'value' || k === 'location')) {
    const val = o.value;
    if (val === null || typeof val !== 'object') {
      lines.push(head(`${o.type} ${JSON.stringify(val)}`));
      return;
    }
    lines.push(head(o.type));
    if (Array.isArray(val)) for (const x of val) tree(x, '', depth + 1, lines);
    else tree(val, '', depth + 1, lines);
    return;
  }
  lines.push(head(''));
  for (const [k, x] of Object.entries(o)) tree(x, k, depth + 1, lines);
}

export default parseCommand.action((path, opts) => {
  if (opts.format !== 'pretty' && opts.format !== 'json') throw new CLIError(`invalid output format "${opts.format}" (pretty, json)`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CLIError(`open ${path}: no such file or directory`);
  }
  let mod;
  try {
    mod = parseModule(text, { filename: path, regoVersion: opts.v0Compatible ? 'v0' : 'v1' });
  } catch (e) {
    if (e instanceof RegoParseError) {
      process.stderr.write((opts.format === 'json' ? jsonErrors(e.errors) : prettyErrors(e.errors)) + '\n');
      throw new CLIError('');
    }
    throw e;
  }
  const includeLocation = opts.jsonInclude.split(',').includes('locations');
  const json = moduleToJSON(mod, { includeLocation });
  if (opts.format === 'json') out(JSON.stringify(json, null, 2));
  else {
    const lines: string[] = [];
    tree(json, 'module', 0, lines);
    out(lines.join('\n'));
  }
});
