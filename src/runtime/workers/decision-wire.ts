// Logged decisions on their way from a worker to the primary, many in one Buffer. Structured
// clone of one object per decision cost the primary more than logging the decision (its
// deserializer builds each object property by property, through map transitions and
// megamorphic lookups); one Buffer crosses as one copy. Per decision, sections, each a u32
// length (NONE: absent) and its UTF-8 bytes, in this order:
//   - the string fields decision_id, path, query, timestamp, requested_by, trace_id and
//     span_id, in that order, as they are (no JSON around them);
//   - the rare fields (error, metrics, req_id, revisions) as one JSON object, when any is set;
//   - the input's JSON: the request body's own text of it when the server found one (a
//     partial input, read where the policy looks, has no other whole form), else its Rego
//     JSON (sorted keys, as the log writes a value): the primary copies it into the event;
//   - the result's JSON (the text the response was written with, when there is one);
//   - the nd_builtin_cache's JSON.

import { parseJSON, toJSONText, type Value } from '../../value/index.js';
import type { LoggedDecision } from '../../plugins/logs/event.js';
import { writeUtf8 } from '../../plugins/logs/event-bytes.js';

const NONE = 0xffffffff;
const FIRST_BYTES = 64 * 1024;
/** The most a writer's buffer keeps between batches (a batch goes at 1 MiB). */
const KEPT_BYTES = 2 * 1024 * 1024;

/** The fields few decisions have, crossing as one JSON object. */
interface RareFields {
  error?: { code: string; message: string };
  metrics?: Record<string, number>;
  req_id?: number;
  revisions?: Record<string, string>;
}

/** A decision without any rare field (most): no object made per decision. */
const NO_RARE_FIELDS: RareFields = Object.freeze({});

/** Decisions written one after the other into one reused buffer. */
export class DecisionWriter {
  private buf = Buffer.allocUnsafeSlow(FIRST_BYTES);
  private at = 0;
  count = 0;

  /** The bytes written since the last take. */
  get size(): number {
    return this.at;
  }

  add(e: LoggedDecision): void {
    let input: Buffer | string | undefined;
    if (e.input_text !== undefined) input = e.input_text;
    else if (e.input_partial) throw new Error('a decision read from part of its input came without the input text');
    else if (e.input !== undefined) input = toJSONText(e.input);
    // (named, not a loop over the names: a keyed load per field was megamorphic in the profile)
    this.section(e.decision_id);
    this.section(e.path);
    this.section(e.query);
    this.section(e.timestamp);
    this.section(e.requested_by);
    this.section(e.trace_id);
    this.section(e.span_id);
    const rare = e.error !== undefined || e.metrics !== undefined || e.req_id !== undefined || e.revisions !== undefined;
    // (JSON.stringify leaves the undefined ones out)
    this.section(rare ? JSON.stringify({ error: e.error, metrics: e.metrics, req_id: e.req_id, revisions: e.revisions } satisfies RareFields) : undefined);
    this.section(input);
    this.section(e.result === undefined ? undefined : (e.result_json ?? toJSONText(e.result)));
    this.section(e.nd_builtin_cache === undefined ? undefined : toJSONText(e.nd_builtin_cache));
    this.count++;
  }

  /** The decisions added since the last take, as one Buffer of their own; the writer starts over. */
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.at));
    this.at = 0;
    this.count = 0;
    // a buffer grown for a huge input is not kept
    if (this.buf.length > KEPT_BYTES) this.buf = Buffer.allocUnsafeSlow(FIRST_BYTES);
    return out;
  }

  private section(s: Buffer | string | undefined): void {
    if (s === undefined) {
      this.room(4);
      this.buf.writeUInt32LE(NONE, this.at);
      this.at += 4;
      return;
    }
    // a string takes at most 3 bytes a UTF-16 unit
    this.room(4 + (typeof s === 'string' ? s.length * 3 : s.length));
    const n = typeof s === 'string' ? writeUtf8(this.buf, this.at + 4, s) : s.copy(this.buf, this.at + 4);
    this.buf.writeUInt32LE(n, this.at);
    this.at += 4 + n;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }
}

/**
 * Stands for an input or a result the primary holds only as text: the log reads them from
 * input_text and result_json (loggedInput, loggedResult), and parses them only for a drop or
 * mask policy (parsing every result cost the primary ~0.8 µs a decision).
 */
const IN_TEXT: Value = Object.freeze({}) as Value;

/**
 * The decisions of a DecisionWriter's Buffer, oldest first; their input texts are views of it.
 * (After IPC the bytes may arrive as a plain Uint8Array view of the message.)
 */
export function readDecisions(bytes: Uint8Array): LoggedDecision[] {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: LoggedDecision[] = [];
  let at = 0;
  // the length of the next section (NONE: absent); `at` moves past its length word
  const next = (): number => {
    const n = buf.readUInt32LE(at);
    at += 4;
    return n;
  };
  const section = (): Buffer | undefined => {
    const n = next();
    if (n === NONE) return undefined;
    const s = buf.subarray(at, at + n);
    at += n;
    return s;
  };
  // (decoded in place: a view per string field cost the primary more than the decoding)
  const str = (): string | undefined => {
    const n = next();
    if (n === NONE) return undefined;
    const s = buf.toString('utf8', at, at + n);
    at += n;
    return s;
  };
  while (at < buf.length) {
    const decision_id = str()!;
    const path = str();
    const query = str();
    const timestamp = str();
    const requested_by = str();
    const trace_id = str();
    const span_id = str();
    const rareText = str();
    const rare: RareFields = rareText === undefined ? NO_RARE_FIELDS : (JSON.parse(rareText) as RareFields);
    const input = section();
    const result = str();
    const nd = str();
    out.push({
      decision_id,
      path,
      query,
      error: rare.error,
      timestamp,
      metrics: rare.metrics,
      requested_by,
      req_id: rare.req_id,
      trace_id,
      span_id,
      revisions: rare.revisions,
      input: input === undefined ? undefined : IN_TEXT,
      input_text: input,
      input_partial: input !== undefined || undefined,
      result: result === undefined ? undefined : IN_TEXT,
      result_json: result,
      result_in_json: result !== undefined || undefined,
      nd_builtin_cache: nd === undefined ? undefined : parseJSON(nd),
    });
  }
  return out;
}
