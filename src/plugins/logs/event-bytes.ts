// The decision event's JSON written straight as UTF-8 bytes into one reused buffer: the
// same bytes as Buffer.from(encodeDecision(...)) (a test holds them equal), without the
// string. Building the text as a string allocated ~17x its size (~5.8 KB for a 340-byte RBAC
// input: a cons cell per "+", flat copies of short pieces, the final flattening), and that
// garbage set the pace of the young generation's collections. Here ASCII is stored byte by
// byte; what needs more (escapes, other characters, sets, big numbers) goes through the
// string writers and Buffer.write.

import { BigNum, RObject, RSet, compareStrings, numberText, toJSONText, type PlainObject, type Value } from '../../value/index.js';
import { eventPath, EventText, type EventContext, type LoggedDecision } from './event.js';
import { loggedInput } from './logged-values.js';

export class EventWriter {
  /** The last event's bytes are buf[0, length). */
  buf = Buffer.allocUnsafeSlow(16 * 1024);
  length = 0;
  private at = 0;
  /** The pieces that repeat from event to event, as bytes. */
  private readonly constants = new ConstantBytes();
  private readonly shapes = new Shapes();

  /** Writes the event of `d` (what encodeDecision returns, as UTF-8); returns its size. */
  decision(d: LoggedDecision, ctx: EventContext, text: EventText): number {
    this.at = 0;
    this.bytes(this.constants.head(text.bundles(ctx.revisions)));
    this.beforeLabels(d);
    this.bytes(this.constants.labels(text.labels(ctx.labels)));
    this.afterLabels(d);
    return (this.length = this.at);
  }

  /**
   * Writes the event of `d` without what the logging process adds (its bundles' revisions
   * and its labels), in two pieces, buf[0, split) and buf[split, length); returns split. A
   * worker writes these and the primary puts them together with assemble().
   */
  pieces(d: LoggedDecision): number {
    this.at = 0;
    this.beforeLabels(d);
    const split = this.at;
    this.afterLabels(d);
    this.length = this.at;
    return split;
  }

  /** What decision() writes, from the pieces of src[start, split) and src[split, end) (see pieces()). */
  assemble(src: Buffer, start: number, split: number, end: number, ctx: EventContext, text: EventText): number {
    this.at = 0;
    this.bytes(this.constants.head(text.bundles(ctx.revisions)));
    this.range(src, start, split);
    this.bytes(this.constants.labels(text.labels(ctx.labels)));
    this.range(src, split, end);
    return (this.length = this.at);
  }

  /** `"<decision_id>"`, the error and the input: the fields sorted before "labels". */
  private beforeLabels(d: LoggedDecision): void {
    this.str(d.decision_id);
    if (d.error) {
      this.ascii(',"error":{"code":');
      this.str(d.error.code);
      this.ascii(',"message":');
      this.str(d.error.message);
      this.ascii('}');
    }
    if (d.input !== undefined) {
      this.ascii(',"input":');
      if (d.input_text !== undefined) this.bytes(d.input_text);
      else this.value(loggedInput(d)!);
    }
  }

  /** The fields sorted after "labels", and the closing brace. */
  private afterLabels(d: LoggedDecision): void {
    if (d.metrics && Object.keys(d.metrics).length) {
      this.ascii(',"metrics":');
      this.value(d.metrics as PlainObject);
    }
    if (d.nd_builtin_cache !== undefined) {
      this.ascii(',"nd_builtin_cache":');
      this.value(d.nd_builtin_cache);
    }
    if (d.path !== undefined) this.bytes(this.constants.path(d.path));
    if (d.query !== undefined) {
      this.ascii(',"query":');
      this.str(d.query);
    }
    if (d.req_id !== undefined) {
      this.ascii(',"req_id":');
      this.ascii(numberText(d.req_id));
    }
    this.ascii(',"requested_by":');
    this.str(d.requested_by ?? '');
    if (d.result !== undefined) {
      this.ascii(',"result":');
      if (d.result_json !== undefined) this.text(d.result_json);
      else this.value(d.result);
    }
    if (d.span_id !== undefined) {
      this.ascii(',"span_id":');
      this.str(d.span_id);
    }
    this.ascii(',"timestamp":');
    this.str(d.timestamp ?? new Date().toISOString());
    if (d.trace_id !== undefined) {
      this.ascii(',"trace_id":');
      this.str(d.trace_id);
    }
    this.ascii('}');
  }

  /** The last event as a string (for the console and listeners). */
  toString(): string {
    return this.buf.toString('utf8', 0, this.length);
  }

  /** Room for `n` more bytes. */
  private room(n: number): Buffer {
    if (this.at + n > this.buf.length) {
      const b = Buffer.allocUnsafeSlow(Math.max(2 * this.buf.length, this.at + n));
      this.buf.copy(b, 0, 0, this.at);
      this.buf = b;
    }
    return this.buf;
  }

  /** Bytes as they are. */
  private bytes(src: Buffer): void {
    const n = src.length;
    const b = this.room(n);
    const at = this.at;
    // (a loop for the short pieces: cheaper than a call into the runtime)
    if (n > 64) src.copy(b, at);
    else for (let i = 0; i < n; i++) b[at + i] = src[i]!;
    this.at = at + n;
  }

  /** The bytes src[start, end) as they are. */
  private range(src: Buffer, start: number, end: number): void {
    const n = end - start;
    src.copy(this.room(n), this.at, start, end);
    this.at += n;
  }

  /** A string known to be ASCII. */
  private ascii(s: string): void {
    const n = s.length;
    const b = this.room(n);
    let at = this.at;
    for (let i = 0; i < n; i++) b[at++] = s.charCodeAt(i);
    this.at = at;
  }

  /** Any string, as UTF-8. */
  private text(s: string): void {
    const b = this.room(3 * s.length);
    this.at += writeUtf8(b, this.at, s);
  }

  /** A string's JSON text, as JSON.stringify writes it. */
  private str(s: string): void {
    const n = s.length;
    const b = this.room(n + 2);
    const start = this.at;
    if (n <= 256) {
      let at = start;
      b[at++] = 0x22; // "
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        // quote, backslash, control characters and anything past ASCII: the general way
        if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x80) {
          at = -1;
          break;
        }
        b[at++] = c;
      }
      if (at >= 0) {
        b[at++] = 0x22;
        this.at = at;
        return;
      }
    }
    this.text(JSON.stringify(s));
  }

  /** What jsonText(v) writes (toJSONText's text: keys sorted by UTF-8 bytes, undefined members left out). */
  private value(v: Value): void {
    if (v === null || v === undefined) return this.ascii('null');
    switch (typeof v) {
      case 'string':
        return this.str(v);
      case 'number':
        return this.ascii(numberText(v));
      case 'boolean':
        return this.ascii(v ? 'true' : 'false');
    }
    if (Array.isArray(v)) {
      const n = v.length;
      this.ascii('[');
      for (let i = 0; i < n; i++) {
        if (i) this.ascii(',');
        this.value(v[i]!);
      }
      return this.ascii(']');
    }
    if (v instanceof RSet || v instanceof RObject || v instanceof BigNum) return this.text(toJSONText(v));
    const o = v as PlainObject;
    const keys = Object.keys(o);
    const shape = this.shapes.of(keys);
    this.ascii('{');
    let first = true;
    if (shape) {
      // keys seen before in this order: their sorted order and their bytes are known
      const { order, keyBytes } = shape;
      for (let i = 0; i < order.length; i++) {
        const x = o[keys[order[i]!]!];
        if (x === undefined) continue;
        if (!first) this.ascii(',');
        first = false;
        this.bytes(keyBytes[i]!);
        this.value(x);
      }
      return this.ascii('}');
    }
    sortKeys(keys);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const x = o[k];
      if (x === undefined) continue;
      if (!first) this.ascii(',');
      first = false;
      this.str(k);
      this.ascii(':');
      this.value(x);
    }
    this.ascii('}');
  }
}

/**
 * Writes `s` as UTF-8 into `b` at `at` (room for 3 bytes a UTF-16 unit); returns its byte
 * length. Short ASCII (ids, times, paths, most keys) goes byte by byte: cheaper than a call into
 * the runtime.
 */
export function writeUtf8(b: Buffer, at: number, s: string): number {
  const n = s.length;
  if (n <= 64) {
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      b[at + i] = c;
    }
    if (i === n) return n;
  }
  return b.write(s, at);
}

/** An object's keys in the order Object.keys gave them, their sorted order, and each sorted key's `"key":` bytes. */
interface Shape {
  keys: string[];
  order: number[];
  keyBytes: Buffer[];
  /** Another shape with the same first key. */
  next: Shape | undefined;
}

const SHAPES_MAX = 512;
const SHAPE_KEYS_MAX = 32;

/**
 * The objects of decision inputs come in a few shapes (a client sends the same keys in the
 * same order): per shape, the sort of its keys and their text are done once. A shape is found
 * by its first key and checked key by key (strings from one parser are mostly the same
 * strings, so each check is a pointer comparison); a shape seen once is remembered on its
 * second sighting only, so inputs with ever-new keys add no work but that check.
 */
class Shapes {
  private readonly byFirst = new Map<string, Shape>();
  private readonly seen = new Map<string, string[]>();
  private count = 0;

  of(keys: string[]): Shape | undefined {
    const n = keys.length;
    if (n === 0 || n > SHAPE_KEYS_MAX) return undefined;
    const first = keys[0]!;
    for (let s = this.byFirst.get(first); s; s = s.next) if (sameKeys(s.keys, keys)) return s;
    // remembered at the second sighting of the same keys
    const before = this.seen.get(first);
    if (before === undefined || !sameKeys(before, keys)) {
      if (this.seen.size >= SHAPES_MAX) this.seen.clear();
      this.seen.set(first, keys.slice());
      return undefined;
    }
    if (this.count >= SHAPES_MAX) {
      this.byFirst.clear();
      this.count = 0;
    }
    const sorted = keys.slice();
    sortKeys(sorted);
    const order = sorted.map((k) => keys.indexOf(k));
    const shape: Shape = { keys: keys.slice(), order, keyBytes: sorted.map((k) => Buffer.from(JSON.stringify(k) + ':')), next: this.byFirst.get(first) };
    this.byFirst.set(first, shape);
    this.count++;
    return shape;
  }
}

function sameKeys(a: string[], b: string[]): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

const PATHS_MAX = 1000;

/**
 * The bytes of what most events repeat: `{"bundles":...,"decision_id":` (one per active
 * revisions text), `,"labels":{...}` (one per labels text: EventText hands the same string
 * until they change) and `,"path":"..."` per decision path (a few; a bounded map). Written
 * character by character they took ~1-2 µs of an RBAC event's ~3 (bench/README, third pass).
 */
class ConstantBytes {
  private headOf: string | undefined;
  private headBytes = Buffer.alloc(0);
  private labelsOf: string | undefined;
  private labelsBytes = Buffer.alloc(0);
  private readonly paths = new Map<string, Buffer>();

  head(bundles: string): Buffer {
    if (bundles !== this.headOf) {
      this.headBytes = Buffer.from('{' + bundles + '"decision_id":');
      this.headOf = bundles;
    }
    return this.headBytes;
  }

  labels(labels: string): Buffer {
    if (labels !== this.labelsOf) {
      this.labelsBytes = Buffer.from(',"labels":' + labels);
      this.labelsOf = labels;
    }
    return this.labelsBytes;
  }

  path(p: string): Buffer {
    let b = this.paths.get(p);
    if (b === undefined) {
      b = Buffer.from(',"path":' + JSON.stringify(eventPath(p)));
      if (this.paths.size >= PATHS_MAX) this.paths.clear();
      this.paths.set(p, b);
    }
    return b;
  }
}

/**
 * Sorts keys by their UTF-8 bytes, in place. Few keys (the usual object): an insertion sort,
 * which allocates nothing; Array.prototype.sort copies the array into work arrays first
 * (~0.9 KB per call, most of what writing an RBAC event still allocated).
 */
function sortKeys(keys: string[]): void {
  const n = keys.length;
  if (n > 32) {
    keys.sort(compareStrings);
    return;
  }
  for (let i = 1; i < n; i++) {
    const k = keys[i]!;
    let j = i - 1;
    if (compareStrings(keys[j]!, k) <= 0) continue;
    do keys[j + 1] = keys[j]!;
    while (--j >= 0 && compareStrings(keys[j]!, k) > 0);
    keys[j + 1] = k;
  }
}

/**
 * An event written elsewhere by EventWriter.pieces (a worker's): its pieces are
 * buf[start, split) and buf[split, end).
 */
export interface WrittenEvent {
  buf: Buffer;
  start: number;
  split: number;
  end: number;
  /** It carries nd_builtin_cache (which may have to go, to fit the upload size limit). */
  ndCache: boolean;
  /** The revisions the decision names itself (an adapter's data), added to the active ones. */
  revisions: Record<string, string> | undefined;
}
