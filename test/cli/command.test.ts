// The subcommand declaration (src/cli/command.ts) and the program's loading of subcommands
// (src/cli/program.ts): flags from shared helpers and opt() reach commander exactly as
// declared, the action gets the arguments and the options, and `regolith <name>` loads
// only that subcommand's file.

import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { command, opt } from '../../src/cli/command.js';
import { format, ignore, v0Compatible } from '../../src/cli/flags.js';
import { commands } from '../../src/cli/commands/index.js';

function parse(sub: ReturnType<ReturnType<typeof command>['action']>, args: string[]): Command {
  const program = new Command('regolith').exitOverride();
  sub.register(program).exitOverride();
  program.parse(['node', 'regolith', ...args]);
  return program;
}

describe('command()', () => {
  it('declares arguments, shared and own flags, and passes them to the action', () => {
    let got: unknown[] = [];
    const sub = command({
      name: 'demo',
      description: 'a demo',
      args: [['<query>', 'the query'], ['[paths...]', 'paths']],
      flags: [format(['pretty', 'json'], 'pretty'), ignore(), v0Compatible(), opt('--count <n>', 'how many', '1'), opt('--no-check', 'skip the check')],
      examples: ['regolith demo q'],
    }).action((query, paths, opts) => {
      got = [query, paths, opts];
    });
    parse(sub, ['demo', '--ignore', 'a,b', '--ignore', 'c', '-f', 'json', '--v0-compatible', 'q', 'x', 'y']);
    expect(got).toEqual(['q', ['x', 'y'], { format: 'json', ignore: ['a', 'b', 'c'], v0Compatible: true, count: '1', check: true }]);
  });

  it('help shows the declared flags and examples', () => {
    const sub = command({ name: 'demo', description: 'a demo', flags: [v0Compatible('read v0')], examples: ['regolith demo'] }).action(() => {});
    const program = new Command('regolith');
    const help = sub.register(program).helpInformation() + '';
    expect(help).toContain('--v0-compatible  read v0');
    let after = '';
    const cmd = sub.register(new Command('regolith'));
    cmd.configureOutput({ writeOut: (s) => (after += s) });
    cmd.exitOverride();
    expect(() => cmd.parse(['--help'], { from: 'user' })).toThrow();
    expect(after).toContain('Examples:\n  regolith demo');
  });

  it('every listed subcommand file declares the subcommand of its name', async () => {
    for (const [name, load] of Object.entries(commands)) expect((await load()).default.name).toBe(name);
  }, 60_000);
});
