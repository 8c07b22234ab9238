// Facts about the original source that the AST does not keep but layout depends on:
// where a node's text ends, on which row a body's closing brace sits (comments before
// it stay inside the braces), and whether an `else` started its own line.

import type { Location } from '../ast.js';

/** Last row covered by a node's source text. */
export function endRow(loc: Location | undefined): number {
  if (!loc) return 0;
  let rows = 0;
  for (let i = 0; i < loc.text.length; i++) if (loc.text.charCodeAt(i) === 10) rows++;
  return loc.row + rows;
}

/** Offset within `loc.text` of the position (row, col), or -1 when outside it. */
function offsetOf(loc: Location, row: number, col: number): number {
  const text = loc.text;
  if (row < loc.row) return -1;
  if (row === loc.row) return col >= loc.col ? col - loc.col : -1;
  let i = 0;
  for (let r = loc.row; r < row; r++) {
    i = text.indexOf('\n', i);
    if (i < 0) return -1;
    i++;
  }
  return i + col - 1;
}

/**
 * Scans `text` from `start` for the bracket that closes at `depth` 0, skipping strings
 * and comments; returns the number of newlines passed, or -1 when it never closes.
 */
function scanClose(text: string, start: number, depth: number, open: string, close: string): number {
  let lines = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') lines++;
    else if (c === '#') {
      const nl = text.indexOf('\n', i);
      if (nl < 0) return -1;
      i = nl - 1;
    } else if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === '\\') i++;
      }
    } else if (c === '`') {
      for (i++; i < text.length && text[i] !== '`'; i++) if (text[i] === '\n') lines++;
    } else if (c === open) depth++;
    else if (c === close) {
      depth--;
      if (depth === 0) return lines;
    }
  }
  return -1;
}

/**
 * Row of the `}` closing the body whose first expression starts at `first`, searched
 * within `container` (the rule, `every` expression, ...); -1 when the body has no braces.
 */
export function bodyCloseRow(container: Location | undefined, first: Location | undefined): number {
  if (!container || !first) return -1;
  const off = offsetOf(container, first.row, first.col);
  if (off < 0) return -1;
  const lines = scanClose(container.text, off, 1, '{', '}');
  return lines < 0 ? -1 : first.row + lines;
}

/** Row of the bracket closing the first `open` in a term's text (`[`, `{`, `(`). */
export function closingRow(loc: Location | undefined, open: string, close: string): number {
  if (!loc) return -1;
  const text = loc.text;
  const i = text.indexOf(open);
  if (i < 0) return -1;
  let before = 0;
  for (let j = 0; j < i; j++) if (text.charCodeAt(j) === 10) before++;
  const lines = scanClose(text, i + 1, 1, open, close);
  return lines < 0 ? -1 : loc.row + before + lines;
}

/** Whether the `else` at `elseRow` shared its line with the end of the previous block. */
export function elseWasInline(rule: Location | undefined, elseRow: number): boolean {
  if (!rule) return false;
  const rel = elseRow - rule.row;
  const lines = rule.text.split('\n');
  if (rel <= 0) return false;
  if (rel >= lines.length) return false;
  return !lines[rel]!.trim().startsWith('else');
}
