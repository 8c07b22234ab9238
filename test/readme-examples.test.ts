// Every block marked runnable in the README (and in examples/sample/README-snippet.md, which
// it links for more requests) runs as written, from the repository's root.
//
// The marker is an HTML comment on the line right before the opening fence:
//
//     <!-- runnable -->
//     ```sh
//     regolith eval -d examples/sample ...
//     ```
//
// Mark a block when it needs nothing beyond this checkout and loopback (no outside network,
// no `npm start` left running elsewhere). Each marked block runs in bash with `set -e -o
// pipefail`, with `regolith` on the PATH (a shim for the built CLI, as `npm link` gives
// users), and must exit 0. A block that starts a server in the background (`... &`) stops it
// itself (`kill $!`); whatever it leaves behind is stopped here: each block runs in its own
// process group, which is killed once the block ends. A comment in the block that shows a
// JSON answer (`# {"result":true}`, on its own line or after a command) must appear in the
// block's output as written. So must the output a block shows in full-line comments right
// after a command (no blank line between): `# true` below a command means its output has the
// line `true`, and consecutive such comments (`#` alone for an empty line) are lines that
// follow one another in it. A comment after a blank line, or inside a here-document, is
// prose and is not checked.
//
// `<!-- runnable with npm start -->` marks a block that talks to the server `npm start` runs
// (examples/sample on localhost:8181): the test starts that server (from the built CLI) for
// it, and skips the block, saying so, when port 8181 is already taken.

import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, ensureBuilt } from './cli/helpers.js';

const MARKER = '<!-- runnable -->';
const WITH_START = '<!-- runnable with npm start -->';

/** The Markdown files whose runnable blocks run here. */
const FILES = ['README.md', 'examples/sample/README-snippet.md'];

/** The runnable blocks: their text and the line of their fence in `file`. */
export function runnableBlocks(markdown: string, file = 'README.md'): { file: string; line: number; text: string; npmStart: boolean }[] {
  const lines = markdown.split('\n');
  const blocks: { file: string; line: number; text: string; npmStart: boolean }[] = [];
  for (let i = 0; i < lines.length - 1; i++) {
    const marker = lines[i]!.trim();
    if (marker !== MARKER && marker !== WITH_START) continue;
    if (!/^```(sh|bash|shell)\s*$/.test(lines[i + 1]!)) throw new Error(`${file}:${i + 1}: ${MARKER} must be right before a \`\`\`sh fence`);
    const end = lines.findIndex((l, j) => j > i + 1 && l.startsWith('```'));
    if (end < 0) throw new Error(`${file}:${i + 2}: unclosed fence`);
    blocks.push({ file, line: i + 2, text: lines.slice(i + 2, end).join('\n'), npmStart: marker === WITH_START });
  }
  return blocks;
}

/** The JSON answers a block's comments show. */
export function shownAnswers(text: string): string[] {
  return [...text.matchAll(/(?:^|\s)# (\{".*\})\s*$/gm)].map((m) => m[1]!);
}

/**
 * The output a block shows in full-line comments right after a command: each run of such
 * comments, as the lines it shows joined by newlines. Comments after a blank line or at the
 * start of a block explain rather than show; here-document bodies are files, not output.
 */
export function shownOutputs(text: string): string[] {
  const shown: string[] = [];
  let run: string[] | undefined;
  let afterCommand = false;
  let heredoc: string | undefined;
  const end = () => {
    if (run) shown.push(run.join('\n'));
    run = undefined;
  };
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (heredoc !== undefined) {
      if (line.trim() === heredoc) heredoc = undefined;
      continue;
    }
    if (line === '#' || line.startsWith('# ')) {
      if (run) run.push(line.slice(2));
      else if (afterCommand) run = [line.slice(2)];
      continue;
    }
    end();
    afterCommand = line.trim() !== '';
    heredoc = /<<-?\s*['"]?(\w+)['"]?/.exec(line)?.[1];
    if (heredoc !== undefined) afterCommand = false;
  }
  end();
  return shown;
}

const blocks = FILES.flatMap((f) => runnableBlocks(readFileSync(join(ROOT, f), 'utf8'), f));
let bin: string;

beforeAll(() => {
  ensureBuilt();
  bin = mkdtempSync(join(tmpdir(), 'regolith-readme-'));
  const shim = join(bin, 'regolith');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(shim, 0o755);
}, 300_000);

afterAll(() => rmSync(bin, { recursive: true, force: true }));

function runBlock(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', text], {
      cwd: ROOT,
      detached: true,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => stopGroup(child.pid!), 150_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      stopGroup(child.pid!);
      resolve({ code, output });
    });
  });
}

/** What `npm start` serves, once built: examples/sample on localhost:8181; undefined when 8181 is taken. */
async function startSample(): Promise<(() => void) | undefined> {
  const free = await new Promise<boolean>((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(8181, 'localhost', () => probe.close(() => done(true)));
  });
  if (!free) return undefined;
  const server = spawn(process.execPath, [BIN, 'run', '--server', '--log-level', 'error', 'examples/sample'], { cwd: ROOT, stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    if (await fetch('http://localhost:8181/health').then((r) => r.ok, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return () => server.kill('SIGTERM');
}

function stopGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // the group is already gone
  }
}

describe('the output a block shows', () => {
  it('is the comments right after a command, a run of them being consecutive lines', () => {
    const block = [
      "echo '{}' |",
      '  regolith eval -I --format source q',
      '# # Query 1',
      '# x == 1',
      '#',
      '# # Query 2',
      'regolith version   # a trailing note is not output',
      '# Version: 0.1.0',
    ].join('\n');
    expect(shownOutputs(block)).toEqual(['# Query 1\nx == 1\n\n# Query 2', 'Version: 0.1.0']);
  });

  it('leaves out comments after a blank line, at the start and inside a here-document', () => {
    const block = [
      '# start the server first',
      'cat > p.rego <<\'REGO\'',
      'package p',
      '# allow everyone',
      'allow := true',
      'REGO',
      '# the file is written',
      'echo done',
      '',
      '# now ask it',
      'regolith eval -d p.rego data.p.allow',
    ].join('\n');
    expect(shownOutputs(block)).toEqual([]);
  });
});

describe('README blocks marked runnable', () => {
  it('there are such blocks (the marker was not lost)', () => {
    expect(blocks.filter((b) => b.file === 'README.md').length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((b) => b.file === 'examples/sample/README-snippet.md').length).toBeGreaterThanOrEqual(2);
  });

  for (const b of blocks) {
    it(`${b.file}:${b.line} runs: ${b.text.split('\n')[0]}`, async (ctx) => {
      const stop = b.npmStart ? await startSample() : undefined;
      if (b.npmStart && !stop) {
        console.log(`skipped ${b.file}:${b.line}: port 8181 is taken, so the npm start server cannot be started for it`);
        ctx.skip();
      }
      let r: { code: number | null; output: string };
      try {
        r = await runBlock(b.text);
      } finally {
        stop?.();
      }
      expect(r.code, r.output).toBe(0);
      for (const answer of shownAnswers(b.text)) expect(r.output).toContain(answer);
      for (const shown of shownOutputs(b.text)) expect(r.output, `${b.file}:${b.line} shows this output`).toContain(shown);
    }, 180_000);
  }
});
