// The decision log copies the input's text from the request body only when that text means
// the value the decision saw. Generated bodies (keys in any order, whitespace anywhere,
// escapes, non-ASCII, big numbers, keys named "input" at any depth) and hostile ones (the key
// twice, spelled plainly or with an escape, another key, invalid UTF-8) are parsed as the
// server parses them; wherever the server would hand the body over (a JSON object whose one
// key is "input"), the copied text, parsed, must equal that input. Compact bodies without
// escapes must be copied: a check that never copies would pass the first property alone.

import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { equal, inputText, inputTextSpan, parseJSON, isPlainObject, type Value } from '../../src/value/index.js';
import { seededRandom } from '../seeded-random.js';

const RUNS = Number(process.env['INPUT_BYTES_RUNS'] ?? 3000);
const SEED = Number(process.env['INPUT_BYTES_SEED'] ?? 20261127);

const KEYS = ['input', 'user', 'a', 'B', 'id', 'é', '日本', 'nput', 'throughput"', 'x y'];
const STRINGS = ['', 'alice', 'a b', 'é', '😀', 'in"put', 'back\\slash', 'nl\n', 'input', 'nput"'];
const NUMBERS = ['0', '-0', '1', '-17', '3.5', '1e21', '1E-7', '12345678901234567890', '1.0', '2e400'];

/** One JSON text for a value drawn here, written with random whitespace and escapes. */
class Writer {
  constructor(private readonly r: () => number) {}

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }

  ws(): string {
    return this.r() < 0.8 ? '' : this.pick([' ', '\n', '\t', '  ', '\r\n']);
  }

  str(s: string): string {
    // sometimes a character as a \u escape, or / as \/
    if (this.r() < 0.1 && s.length) return '"' + '\\u' + s.charCodeAt(0).toString(16).padStart(4, '0') + JSON.stringify(s).slice(2);
    return JSON.stringify(s);
  }

  value(depth: number): string {
    const k = this.r();
    if (depth <= 0 || k < 0.4) {
      const t = Math.floor(this.r() * 5);
      return t === 0 ? 'null' : t === 1 ? this.pick(['true', 'false']) : t === 2 ? this.pick(NUMBERS) : this.str(this.pick(STRINGS));
    }
    if (k < 0.6) {
      const n = Math.floor(this.r() * 4);
      return '[' + this.ws() + Array.from({ length: n }, () => this.value(depth - 1)).join(this.ws() + ',' + this.ws()) + this.ws() + ']';
    }
    const n = Math.floor(this.r() * 4);
    const members: string[] = [];
    for (let i = 0; i < n; i++) {
      const key = this.pick(KEYS);
      members.push(this.str(key) + this.ws() + ':' + this.ws() + this.value(depth - 1));
      // a key twice in one object (the parser keeps the last)
      if (this.r() < 0.05) members.push(this.str(key) + ':' + this.value(depth - 1));
    }
    return '{' + this.ws() + members.join(this.ws() + ',' + this.ws()) + this.ws() + '}';
  }

  /** A request body: mostly `{"input":...}`, sometimes with another key, the key twice, or a different spelling of the head. */
  body(): Buffer {
    const v = this.value(3);
    const k = this.r();
    let text: string;
    if (k < 0.6) text = '{"input":' + v + '}';
    else if (k < 0.7) text = this.ws() + '{' + this.ws() + '"input"' + this.ws() + ':' + this.ws() + v + this.ws() + '}' + this.ws();
    else if (k < 0.77) text = '{"input":' + this.value(2) + ',"input":' + v + '}';
    else if (k < 0.82) text = '{"input":' + this.value(2) + ',' + this.pick(['"\\u0069nput"', '"inpu\\u0074"', '"in\\u0070ut"']) + ':' + v + '}';
    else if (k < 0.88) text = '{"input":' + v + ',' + this.str(this.pick(KEYS)) + ':' + this.value(1) + '}';
    else if (k < 0.92) text = '{' + this.str(this.pick(KEYS)) + ':1,"input":' + v + '}';
    else text = '{"input":' + v + '}';
    const bytes = Buffer.from(text);
    // invalid UTF-8 inside a string: the parser reads U+FFFD there
    if (k >= 0.92 && k < 0.96) {
      const at = bytes.indexOf(0x22, 9);
      if (at > 0) return Buffer.concat([bytes.subarray(0, at + 1), Buffer.from([this.pick([0xff, 0xc3, 0xe6, 0x80])]), bytes.subarray(at + 1)]);
    }
    return bytes;
  }
}

/** What the server does with a body: the input when it is a JSON object whose one key is "input". */
function soleInput(body: Buffer): { input: Value } | undefined {
  let doc: Value;
  try {
    doc = parseJSON(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isPlainObject(doc)) return undefined;
  const keys = Object.keys(doc);
  return keys.length === 1 && keys[0] === 'input' ? { input: doc['input']! } : undefined;
}

/** The input's text as a string, or undefined when it cannot be copied. */
const textOf = (body: Buffer): string | undefined => inputText(body)?.toString('utf8');

describe('the input text copied from a request body', () => {
  it(`means the value the decision saw, whenever it is copied (${RUNS} generated bodies, seed ${SEED})`, () => {
    const r = seededRandom(SEED);
    const w = new Writer(r);
    let handed = 0;
    let copied = 0;
    for (let run = 0; run < RUNS; run++) {
      const body = w.body();
      const sole = soleInput(body);
      if (!sole) continue;
      handed++;
      const text = textOf(body);
      if (text === undefined) continue;
      copied++;
      let back: Value;
      try {
        back = parseJSON(text);
      } catch (e) {
        throw new Error(`copied text is not JSON (seed ${SEED}, run ${run}): ${body.toString('latin1')} -> ${text}: ${(e as Error).message}`);
      }
      if (!equal(back, sole.input)) throw new Error(`copied text means another value (seed ${SEED}, run ${run}): ${body.toString('latin1')} -> ${text}`);
      const [start, end] = inputTextSpan(body)!;
      if (!isUtf8(body.subarray(start, end))) throw new Error(`copied bytes are not UTF-8 (seed ${SEED}, run ${run}): ${body.toString('latin1')}`);
    }
    // the generator reaches both sides of the check
    expect(handed).toBeGreaterThan(RUNS / 2);
    expect(copied).toBeGreaterThan(handed / 4);
    expect(copied).toBeLessThan(handed);
  });

  it('copies bodies without escapes, compact or pretty-printed, as they are', () => {
    const cases = [
      '{"input":{"user":"alice","action":"read","resource":{"type":"invoice","tags":["q3","emea"]}}}',
      '{"input":[1,2.50,"é😀",null,true]}',
      '{"input":"x"}',
      '{"input":12345678901234567890}',
      '  {"input":  {"b":1, "a":2}  }\n',
      // pretty-printed: whitespace between the brace, the key and the colon
      '{\n  "input": {\n    "user": "alice"\n  }\n}\n',
      '{ "input" : [1, 2] }',
      '\t{\r\n"input"\t:"x"}',
      // escapes that cannot spell a key "input": quotes, newlines, backslashes, other characters
      '{"input":{"say":"a \\"quoted\\" word\\n","path":"C:\\\\x","e":"\\u00e9\\u65e5"}}',
    ];
    for (const c of cases) {
      const body = Buffer.from(c);
      const text = textOf(body)!;
      expect(text).toBe(c.trim().slice(c.indexOf(':') - c.indexOf('{') + 1, -1).trim());
      const [start, end] = inputTextSpan(body)!;
      expect(body.toString('utf8', start, end)).toBe(text);
    }
  });

  it('never copies a body whose key "input" came twice, however it is spelled', () => {
    for (const c of [
      '{"input":{"user":"mallory"},"input":{"user":"bob"}}',
      '{"input":"a","\\u0069nput":"b"}',
      '{"input":1,"inpu\\u0074":2}',
      '{"input":{"x":1} , "input" : {"x":2}}',
      '{"input":"a\\n","i\\u006eput":"b"}',
      '{"input":"a\\"","\\u0069\\u006E\\u0070\\u0075\\u0074":"b"}',
    ]) {
      expect(soleInput(Buffer.from(c))).toBeDefined(); // the server would hand it over
      expect(textOf(Buffer.from(c))).toBeUndefined();
    }
  });

  it('never copies bytes that are not UTF-8, nor a body that does not start with {"input":', () => {
    const bad = Buffer.concat([Buffer.from('{"input":{"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}')]);
    expect(soleInput(bad)).toBeDefined();
    expect(textOf(bad)).toBeUndefined();
    for (const c of ['\ufeff{"input":1}', '{"inputs":1}', '{"input"1}', '{"\\u0069nput":1}', '[1]', '{"input":1', '{"input":}', '{ }']) expect(textOf(Buffer.from(c))).toBeUndefined();
  });
});
