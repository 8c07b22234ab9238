// Scanning of template strings, `$"Hello {input.name}"` and `` $`raw {x}` ``: where
// the literal text runs and where each embedded expression starts and ends. The lexer
// uses it to find the end of the whole template (one token), the parser to split it.
// As in OPA: `\{` is a literal brace in both forms; the double-quoted form takes JSON
// escapes and ends at a line break, the raw form keeps backslashes and spans lines;
// `}` needs no escape.

export interface TemplateText {
  kind: 'text';
  /** Offsets of the source text of this part (escapes included). */
  start: number;
  end: number;
  /** The text in JSON string syntax (`\{` already turned into `{`); raw form: the value. */
  json: string;
}
export interface TemplateHole {
  kind: 'expr';
  /** Offsets of the expression between the braces. */
  start: number;
  end: number;
}
export type TemplatePart = TemplateText | TemplateHole;

export interface TemplateScan {
  raw: boolean;
  parts: TemplatePart[];
  /** Offset one past the closing quote; where scanning stopped when not terminated. */
  end: number;
  terminated: boolean;
  /** Offset of the problem when not terminated. */
  errorAt?: number;
}

/** Whether a template string starts at `i`. */
export function templateStartsAt(text: string, i: number): boolean {
  const q = text.charCodeAt(i + 1);
  return text.charCodeAt(i) === 36 /* $ */ && (q === 34 /* " */ || q === 96) /* ` */;
}

/** Scans the template string starting at `i` (which must satisfy templateStartsAt). */
export function scanTemplate(text: string, i: number): TemplateScan {
  const raw = text[i + 1] === '`';
  const close = raw ? '`' : '"';
  const parts: TemplatePart[] = [];
  let pos = i + 2;
  let partStart = pos;
  let json = '';
  const flush = (end: number) => {
    if (end > partStart) parts.push({ kind: 'text', start: partStart, end, json });
    json = '';
  };
  while (pos < text.length) {
    const c = text[pos]!;
    if (c === close) {
      flush(pos);
      return { raw, parts, end: pos + 1, terminated: true };
    }
    if (!raw && c === '\n') break;
    if (c === '\\') {
      const e = text[pos + 1];
      if (e === '{') {
        json += '{';
        pos += 2;
        continue;
      }
      if (!raw) {
        // Keep the escape for JSON decoding; a `\"` must not end the string.
        if (e === undefined || e === '\n') break;
        json += c + e;
        pos += 2;
        continue;
      }
    }
    if (c === '{') {
      flush(pos);
      const close = skipExpression(text, pos + 1);
      if (close < 0) return { raw, parts, end: text.length, terminated: false, errorAt: pos };
      parts.push({ kind: 'expr', start: pos + 1, end: close });
      pos = close + 1;
      partStart = pos;
      continue;
    }
    json += c;
    pos++;
  }
  return { raw, parts, end: pos, terminated: false, errorAt: pos };
}

/** Offset of the `}` that closes an expression starting at `j`, or -1. */
function skipExpression(text: string, j: number): number {
  let depth = 0;
  while (j < text.length) {
    const c = text[j]!;
    if (c === '"') {
      j++;
      while (j < text.length && text[j] !== '"' && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      if (text[j] !== '"') return -1;
      j++;
    } else if (c === '`') {
      const k = text.indexOf('`', j + 1);
      if (k < 0) return -1;
      j = k + 1;
    } else if (templateStartsAt(text, j)) {
      const inner = scanTemplate(text, j);
      if (!inner.terminated) return -1;
      j = inner.end;
    } else if (c === '#') {
      const k = text.indexOf('\n', j);
      j = k < 0 ? text.length : k;
    } else {
      if (c === '{') depth++;
      else if (c === '}') {
        if (depth === 0) return j;
        depth--;
      }
      j++;
    }
  }
  return -1;
}
