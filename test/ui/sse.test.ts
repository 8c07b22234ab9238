// The console's server-sent event reader (ui/src/sse.ts): events split as the protocol says,
// however the text is cut into chunks.

import { describe, expect, it } from 'vitest';
import { eventParser, type ServerEvent } from '../../ui/src/sse.js';

function parse(chunks: string[]): ServerEvent[] {
  const out: ServerEvent[] = [];
  const feed = eventParser((e) => out.push(e));
  for (const c of chunks) feed(c);
  return out;
}

const STREAM = ': connected\n\nevent: decision\ndata: {"a":1}\n\n: ping\n\ndata: one\ndata: two\n\nevent: disabled\ndata:{"hint":"off"}\n\n';
const EXPECTED = [
  { event: 'decision', data: '{"a":1}' },
  { event: 'message', data: 'one\ntwo' },
  { event: 'disabled', data: '{"hint":"off"}' },
];

describe('eventParser', () => {
  it('reads events, joins data lines and skips comments', () => {
    expect(parse([STREAM])).toEqual(EXPECTED);
  });

  it('gives the same events whatever the chunks', () => {
    for (let i = 1; i < STREAM.length; i++) expect(parse([STREAM.slice(0, i), STREAM.slice(i)])).toEqual(EXPECTED);
    expect(parse([...STREAM])).toEqual(EXPECTED);
  });

  it('accepts CRLF and CR line ends, a CRLF split across chunks included', () => {
    const crlf = STREAM.replaceAll('\n', '\r\n');
    for (let i = 1; i < crlf.length; i++) expect(parse([crlf.slice(0, i), crlf.slice(i)])).toEqual(EXPECTED);
    expect(parse([STREAM.replaceAll('\n', '\r')])).toEqual(EXPECTED);
  });

  it('holds an unfinished event until its blank line', () => {
    expect(parse(['event: decision\ndata: {}\n'])).toEqual([]);
  });
});
