// A unified diff (`diff -u` layout) between a source file and its formatted text, for
// `regolith fmt --diff`. Lines are matched by a longest-common-subsequence table; very
// large inputs fall back to one hunk replacing everything.

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function editScript(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const ops: Op[] = [];
  if (n * m > 16_000_000) {
    a.forEach((line, i) => ops.push({ kind: '-', line, a: i, b: 0 }));
    b.forEach((line, j) => ops.push({ kind: '+', line, a: n, b: j }));
    return ops;
  }
  // lcs[i][j] = LCS length of a[i..] and b[j..], in one flat table.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: ' ', line: a[i]!, a: i++, b: j++ });
    else if (i < n && (j === m || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) ops.push({ kind: '-', line: a[i]!, a: i++, b: j });
    else ops.push({ kind: '+', line: b[j]!, a: i, b: j++ });
  }
  return ops;
}

function range(start: number, count: number): string {
  // `diff -u` numbers an empty range by the line before it.
  const first = count === 0 ? start : start + 1;
  return count === 1 ? `${first}` : `${first},${count}`;
}

/** The unified diff from `before` to `after`; empty when they are equal. */
export function unifiedDiff(before: string, after: string, fromName: string, toName: string, context = 3): string {
  if (before === after) return '';
  // A last line without its newline differs from the same text with one (as in diff -u).
  const NONL = '\u0000';
  const a = splitLines(before);
  const b = splitLines(after);
  if (before !== '' && !before.endsWith('\n')) a[a.length - 1] += NONL;
  if (after !== '' && !after.endsWith('\n')) b[b.length - 1] += NONL;
  const ops = editScript(a, b);
  const out: string[] = [`--- ${fromName}`, `+++ ${toName}`];
  let k = 0;
  while (k < ops.length) {
    while (k < ops.length && ops[k]!.kind === ' ') k++;
    if (k >= ops.length) break;
    // A hunk: changes joined while the unchanged runs between them are short.
    const start = Math.max(0, k - context);
    let end = k;
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++;
      let same = end;
      while (same < ops.length && ops[same]!.kind === ' ') same++;
      if (same < ops.length && same - end <= 2 * context) end = same;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    const hunk = ops.slice(start, end);
    const aStart = hunk[0]!.a;
    const bStart = hunk[0]!.b;
    const aCount = hunk.filter((o) => o.kind !== '+').length;
    const bCount = hunk.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${range(aStart, aCount)} +${range(bStart, bCount)} @@`);
    for (const o of hunk) {
      if (o.line.endsWith(NONL)) out.push(o.kind + o.line.slice(0, -1), '\\ No newline at end of file');
      else out.push(o.kind + o.line);
    }
    k = end;
  }
  return out.join('\n') + '\n';
}
