// ASCII tables in the style `opa inspect` prints: upper-case centred headers, left-aligned
// cells, and repeated values in the first column shown once.

function pad(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - [...s].length));
}

function centre(s: string, width: number): string {
  const total = width - [...s].length;
  const left = Math.floor(total / 2);
  return ' '.repeat(Math.max(0, left)) + s + ' '.repeat(Math.max(0, total - left));
}

export function renderTable(headers: string[], rows: string[][]): string {
  const shown = rows.map((r, i) => r.map((c, j) => (j === 0 && i > 0 && rows[i - 1]![0] === c ? '' : c)));
  const widths = headers.map((h, j) => Math.max([...h].length, ...rows.map((r) => [...(r[j] ?? '')].length)));
  const line = '+' + widths.map((w) => '-'.repeat(w + 2)).join('+') + '+';
  const out = [line, '|' + headers.map((h, j) => ` ${centre(h.toUpperCase(), widths[j]!)} `).join('|') + '|', line];
  for (const r of shown) out.push('|' + widths.map((w, j) => ` ${pad(r[j] ?? '', w)} `).join('|') + '|');
  out.push(line);
  return out.join('\n') + '\n';
}

/** Shortens long values as OPA does (50 characters, with an ellipsis). */
export function truncate(s: string, max = 50): string {
  return s.length < max ? s : s.slice(0, max - 3) + '...';
}
