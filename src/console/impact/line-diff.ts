// A line diff of two texts (the candidate's module against the live one), by longest
// common subsequence after trimming the lines both share at the start and the end. Past a
// size the table would be too large for: undefined (the caller says the file is too large
// to compare line by line).

export interface DiffLine {
  /** ' ' both, '-' only the old text, '+' only the new. */
  op: ' ' | '-' | '+';
  text: string;
}

/** Cells of the LCS table at most (old lines × new lines after trimming). */
export const MAX_CELLS = 4_000_000;

export function lineDiff(oldText: string, newText: string): DiffLine[] | undefined {
  const a = oldText.split('\n');
  const b = newText.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const n = endA - start;
  const m = endB - start;
  if (n * m > MAX_CELLS) return undefined;
  // lcs[i][j]: the common subsequence of a[start+i..endA) and b[start+j..endB)
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[start + i] === b[start + j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: DiffLine[] = a.slice(0, start).map((text) => ({ op: ' ', text }));
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[start + i] === b[start + j]) {
      out.push({ op: ' ', text: a[start + i]! });
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      // removals before additions, as unified diffs print them
      out.push({ op: '-', text: a[start + i]! });
      i++;
    } else {
      out.push({ op: '+', text: b[start + j]! });
      j++;
    }
  }
  for (const text of a.slice(endA)) out.push({ op: ' ', text });
  return out;
}
