// Docs drift: every path into the repository that a Markdown file names (`src/...`,
// `test/...`, `bench/...`, ...) must exist, so a file moved or removed without its docs
// fails here. Paths with a placeholder (`src/integrations/<api>/`, `docs/*.md`, `{a,b}`)
// are patterns, not paths, and are left alone.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TOP = ['src', 'test', 'bench', 'lint', 'scripts', 'examples', 'policies', 'deploy', 'ui', 'docs', '.ci'];
// A path starts after something that cannot be part of one (so `../src/x` or `a/src/x` are not
// taken for `src/x`) and ends on a name character or a slash (not on a sentence's full stop).
const PATH = new RegExp(`(?<![\\w./-])((?:${TOP.map((t) => t.replace('.', '\\.')).join('|')})/[\\w./-]*[\\w/])`, 'g');

/** The Markdown files git knows of (tracked, or new and not ignored). */
function markdownFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.md'], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(out.split('\n').filter((f) => f && existsSync(join(ROOT, f))))];
}

/** `file:line: path` for each named path that exists neither from the root nor from the file's folder. */
function missingPaths(file: string, text: string): string[] {
  const missing: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(PATH)) {
      const path = m[1]!;
      const next = line[m.index! + m[0].length] ?? '';
      if (next && '<*{'.includes(next)) continue; // a pattern: src/integrations/<api>/
      if (existsSync(join(ROOT, path)) || existsSync(join(ROOT, dirname(file), path))) continue;
      missing.push(`${file}:${i + 1}: ${path}`);
    }
  });
  return missing;
}

describe('paths named in the docs', () => {
  it('finds the paths it is meant to check, and only those', () => {
    expect(missingPaths('README.md', 'see `src/value/index.ts` and src/no/such.ts.')).toEqual(['README.md:1: src/no/such.ts']);
    expect(missingPaths('README.md', 'src/integrations/<api>/ and ../shared/src/x and docs/*.md')).toEqual([]);
    expect(missingPaths('src/integrations/calendar/README.md', 'code: `index.ts`; policy: policies/deployments/')).toEqual([]);
  });

  it('every path a Markdown file names exists', () => {
    const files = markdownFiles();
    expect(files).toContain('README.md');
    const missing = files.flatMap((f) => missingPaths(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(missing).toEqual([]);
  });
});
