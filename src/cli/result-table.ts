// Tables as `opa eval --format pretty` draws them (tablewriter's ASCII style): headers as
// written and centred, cells left-aligned.

function width(s: string): number {
  return [...s].length;
}

function pad(s: string, w: number): string {
  return s + ' '.repeat(Math.max(0, w - width(s)));
}

function centre(s: string, w: number): string {
  const total = Math.max(0, w - width(s));
  const left = Math.floor(total / 2);
  return ' '.repeat(left) + s + ' '.repeat(total - left);
}

export function asciiTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, j) => Math.max(width(h), ...rows.map((r) => width(r[j] ?? ''))));
  const line = '+' + widths.map((w) => '-'.repeat(w + 2)).join('+') + '+';
  const out = [line, '|' + headers.map((h, j) => ` ${centre(h, widths[j]!)} `).join('|') + '|', line];
  for (const r of rows) out.push('|' + widths.map((w, j) => ` ${pad(r[j] ?? '', w)} `).join('|') + '|');
  out.push(line);
  return out.join('\n') + '\n';
}

/** OPA's --pretty-limit: long cell values are cut and end with "...". */
export function limit(s: string, n: number): string {
  return n > 0 && s.length > n ? s.slice(0, n) + '...' : s;
}
