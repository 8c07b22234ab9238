// Decision-log events as NDJSON (one JSON object per line, as the decision log plugin and
// OPA's console logger write them). Blank lines are ignored; a line that is not a JSON
// object yields a MalformedLine, which replay counts as skipped ("malformed").
// Numbers keep every digit (the exact JSON reader), as the server reads inputs.

import { isPlainObject, parseJSON } from '../../engine/index.js';

export class MalformedLine {
  constructor(
    /** 1-based line number. */
    readonly line: number,
    readonly message: string,
  ) {}
}

function parseLine(text: string, line: number): unknown {
  try {
    const v = parseJSON(text);
    return isPlainObject(v) ? v : new MalformedLine(line, 'not a JSON object');
  } catch (e) {
    return new MalformedLine(line, (e as Error).message);
  }
}

function parseText(text: string): unknown[] {
  const out: unknown[] = [];
  text.split('\n').forEach((raw, i) => {
    const l = raw.trim();
    if (l !== '') out.push(parseLine(l, i + 1));
  });
  return out;
}

async function* parseStream(src: AsyncIterable<string | Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let rest = '';
  let line = 0;
  for await (const chunk of src) {
    rest += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = rest.indexOf('\n')) >= 0) {
      const l = rest.slice(0, nl).trim();
      rest = rest.slice(nl + 1);
      line++;
      if (l !== '') yield parseLine(l, line);
    }
  }
  rest += decoder.decode();
  line++;
  if (rest.trim() !== '') yield parseLine(rest.trim(), line);
}

/** The events of an NDJSON text (an array) or stream (an async iterable). */
export function parseNDJSON(src: string): unknown[];
export function parseNDJSON(src: AsyncIterable<string | Uint8Array>): AsyncIterable<unknown>;
export function parseNDJSON(src: string | AsyncIterable<string | Uint8Array>): unknown[] | AsyncIterable<unknown> {
  return typeof src === 'string' ? parseText(src) : parseStream(src);
}
