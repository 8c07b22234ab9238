// The REPL's `help` text, laid out as OPA's: examples, commands, additional topics, and the
// two topics (`help input`, `help partial`).

interface CommandDesc {
  name: string;
  args: string[];
  help: string;
}

const EXAMPLES: [string, string][] = [
  ['data', 'show all documents'],
  ['data[x] = _', 'show all top level keys'],
  ['data.system.version', 'drill into specific document'],
];

const EXTRA: CommandDesc[] = [
  { name: '<stmt>', args: [], help: 'evaluate the statement' },
  { name: 'package', args: ['<term>'], help: 'change active package' },
  { name: 'import', args: ['<term>'], help: 'add import to active module' },
];

/** The REPL's commands (a line starting with one of these names is that command). */
export const COMMANDS: CommandDesc[] = [
  { name: 'show', args: [''], help: 'show active module definition' },
  { name: 'show debug', args: [''], help: 'show REPL settings' },
  { name: 'unset', args: ['<var>'], help: 'unset rules in currently active module' },
  { name: 'unset-package', args: ['<var>'], help: 'unset packages in currently active module' },
  { name: 'json', args: [], help: 'set output format to JSON' },
  { name: 'pretty', args: [], help: 'set output format to pretty' },
  { name: 'pretty-limit', args: [], help: 'set pretty value output limit' },
  { name: 'trace', args: ['[mode]'], help: 'toggle full trace or specific mode' },
  { name: 'notes', args: [], help: 'toggle notes trace' },
  { name: 'fails', args: [], help: 'toggle fails trace' },
  { name: 'metrics', args: [], help: 'toggle metrics' },
  { name: 'instrument', args: [], help: 'toggle instrumentation' },
  { name: 'profile', args: [], help: 'toggle profiler and turns off trace' },
  { name: 'types', args: [], help: 'toggle type information' },
  { name: 'unknown', args: ['[ref-1 [ref-2 [...]]]'], help: 'toggle partial evaluation mode' },
  { name: 'strict-builtin-errors', args: [], help: 'toggle strict built-in error mode' },
  { name: 'dump', args: ['[path]'], help: 'dump raw data in storage' },
  { name: 'help', args: ['[topic]'], help: 'print this message' },
  { name: 'target', args: ['[mode]'], help: 'set the runtime to exercise {rego,wasm} (default rego)' },
  { name: 'exit', args: [], help: 'exit out of shell (or ctrl+d)' },
  { name: 'ctrl+l', args: [], help: 'clear the screen' },
];

const syntax = (c: CommandDesc) => (c.args.length ? `${c.name} ${c.args.join(' ')}` : c.name);

const TOPICS: [string, string, string][] = [
  [
    'input',
    'how to set input document',
    `Rego allows queries to refer to documents outside of the storage layer. These
documents must be provided as inputs to the query engine. In Rego, these values
are nested under the root "input" document.

In the interactive shell, users can set the value for the "input" document by
defining documents under the repl.input package.

For example:

	# Change to the repl.input package.
	> package repl.input

	# Define a new document called "params".
	> params = {"method": "POST", "path": "/some/path"}

	# Switch back to another package to test access to input.
	> package opa.example

	# Import "params" defined above.
	> import input.params

	# Import a future keyword.
	> import future.keywords.in
	> 1 in [0, 2, 1]
	true

	# Define rule that refers to "params".
	> is_post { params.method = "POST" }

	# Test evaluation.
	> is_post
	true`,
  ],
  [
    'partial',
    'how to use partial evaluation',
    `Rego queries can be partially evaluated with respect to the specific unknown
variables, inputs, or any document rooted under data. The result of partial
evaluation is a new set of queries that can be evaluated later.

For example:

	> allowed_methods = ["GET", "HEAD"]

	# Enable partial evaluation. Treat input document as unknown.
	> unknown input

	# Partially evaluate a query.
	> method = allowed_methods[i]; input.method = method
	input.method = "GET"; i = 0; method = "GET"
	input.method = "HEAD"; i = 1; method = "HEAD"

	# Turn off partial evaluation by running the 'unknown' command with no arguments.
	> unknown`,
  ],
];

/** `help`: examples, then every command and topic. */
export function helpText(prompt = '> '): string {
  const exWidth = Math.max(...EXAMPLES.map(([e]) => e.length)) + 1;
  let out = '\nExamples\n========\n\n';
  for (const [e, c] of EXAMPLES) out += `${prompt}${e.padEnd(exWidth)} # ${c}\n`;
  out += '\n';
  const all = [...EXTRA, ...COMMANDS];
  const names = [...all.map(syntax), ...TOPICS.map(([t]) => `help ${t}`)];
  const width = Math.max(...names.map((n) => n.length));
  out += 'Commands\n========\n\n';
  for (const c of all) out += `${syntax(c).padStart(width)} : ${c.help}\n`;
  out += '\nAdditional Topics\n=================\n\n';
  for (const [t, c] of TOPICS) out += `${`help ${t}`.padStart(width)} : ${c}\n`;
  return out + '\n';
}

/** `help <topic>`, or undefined for a topic OPA does not have. */
export function topicText(topic: string): string | undefined {
  const t = TOPICS.find(([name]) => name === topic);
  if (!t) return undefined;
  const title = t[0] === 'input' ? 'Input' : 'Partial Evaluation';
  return `\n${title}\n${'='.repeat(title.length)}\n\n${t[2]}\n\n`;
}
