// `regolith run` without --server: OPA's interactive shell over the loaded paths. Lines come
// from a terminal (line editing, history kept across sessions in the history file) or from
// piped stdin (no prompts, as OPA's line reader when input is redirected); the session ends
// with `exit` or end of input (ctrl+d). ctrl+c drops the block being typed.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { RegoVersion } from '../../../engine/index.js';
import type { VerificationConfig } from '../../../bundle/index.js';
import { loadPaths } from '../../../runtime/load-paths.js';
import { buildPolicySet, prettyErrorText, toErrorDetails } from '../../../runtime/policy-set.js';
import { loadBuiltinModules } from '../../../runtime/custom-builtins.js';
import { CLIError } from '../../io.js';
import { regolithVersion } from '../../version-info.js';
import { ReplSession, type ReplFormat } from './session.js';

export interface ReplRunOptions {
  paths: string[];
  bundleMode: boolean;
  ignore: string[];
  regoVersion: RegoVersion;
  verification?: VerificationConfig;
  format: ReplFormat;
  /** The history file (default ~/.regolith_history). */
  history?: string;
  /** --builtins: JavaScript modules of custom built-ins. */
  builtins?: string[];
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream & { isTTY?: boolean };
}

const HISTORY_MAX = 1000;

export function defaultHistoryPath(): string {
  return join(homedir(), '.regolith_history');
}

function readHistory(path: string): string[] {
  try {
    return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l !== '') : [];
  } catch {
    return [];
  }
}

/** Loads the paths as `regolith run --server` does and runs the shell until exit or end of input. */
export async function runRepl(o: ReplRunOptions): Promise<void> {
  let set;
  let data;
  const builtins = await loadBuiltinModules(o.builtins ?? []);
  try {
    const loaded = await loadPaths({
      paths: o.bundleMode ? [] : o.paths,
      bundles: o.bundleMode ? o.paths : [],
      ignore: o.ignore,
      regoVersion: o.regoVersion,
      verification: o.verification,
    });
    set = buildPolicySet(loaded, { regoVersion: o.regoVersion, builtins });
    data = loaded.data;
  } catch (e) {
    throw new CLIError(prettyErrorText(toErrorDetails(e)));
  }
  const input = o.input ?? process.stdin;
  const output = o.output ?? process.stdout;
  const terminal = !!input.isTTY && !!output.isTTY;
  const write = (text: string) => void output.write(text);
  const session = new ReplSession({ builtins, modules: set.modules, data, regoVersion: o.regoVersion, format: o.format, write, print: (t) => void process.stderr.write(t) });

  const historyPath = o.history ?? defaultHistoryPath();
  const history = readHistory(historyPath);
  const entered: string[] = [];
  write(`Regolith ${regolithVersion()} (an OPA-compatible policy engine)\n\nRun 'help' to see a list of commands.\n\n`);

  const rl = createInterface({
    input,
    output: terminal ? output : undefined,
    terminal,
    history: [...history].reverse(),
    historySize: HISTORY_MAX,
    removeHistoryDuplicates: false,
    // Tab completes the word under the cursor with rule paths and imports.
    completer: (line: string): [string[], string] => {
      const word = /[^\s]*$/.exec(line)![0];
      return [session.complete(word), word];
    },
  });
  const prompt = () => {
    if (!terminal) return;
    rl.setPrompt(session.prompt());
    rl.prompt();
  };
  // ctrl+c: drop the block being typed and start a fresh prompt.
  rl.on('SIGINT', () => {
    session.reset();
    write('\n');
    prompt();
  });
  prompt();
  let exited = false;
  try {
    for await (const line of rl) {
      if (line.trim() !== '' && entered[entered.length - 1] !== line) entered.push(line);
      if (await session.oneShot(line)) {
        exited = true;
        break;
      }
      prompt();
    }
    // End of input (ctrl+d): OPA prints a newline before leaving.
    if (!exited) write('\n');
  } finally {
    rl.close();
    try {
      writeFileSync(historyPath, [...history, ...entered].slice(-HISTORY_MAX).join('\n') + '\n');
    } catch {
      // A history file that cannot be written is not worth failing the session for.
    }
  }
}
