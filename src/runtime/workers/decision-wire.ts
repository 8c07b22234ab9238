// Logged decisions on their way from a worker to the primary, many in one Buffer. The worker
// writes each event's JSON itself (EventWriter.pieces): all of it but what the primary adds,
// its bundles' revisions and its labels, which the primary puts in between the two pieces
// (EventWriter.assemble) with no decoding and no second writing of the event. (Structured clone
// of one object per decision cost the primary more than logging the decision; later, decoding
// each decision's fields and writing its event again cost the primary ~2 µs a decision.)
// Per decision:
//   - u32: the size of the two pieces together, n;
//   - u32: the size of the first piece (the end of `"decision_id"`... up to the input);
//   - u32: flags (HAS_ND_CACHE: the event carries nd_builtin_cache, which the primary may
//     have to drop to fit the upload size limit);
//   - u32: the size of the JSON object of the revisions the decision names itself (an
//     adapter's data), NONE when it names none, and that JSON;
//   - the n bytes of the pieces.

import type { LoggedDecision } from '../../plugins/logs/event.js';
import { EventWriter, type WrittenEvent } from '../../plugins/logs/event-bytes.js';

const NONE = 0xffffffff;
const HAS_ND_CACHE = 1;
const FIRST_BYTES = 64 * 1024;
/** The most a writer's buffer keeps between batches (a batch goes at 1 MiB). */
const KEPT_BYTES = 2 * 1024 * 1024;

/** Decisions written one after the other into one reused buffer. */
export class DecisionWriter {
  private buf = Buffer.allocUnsafeSlow(FIRST_BYTES);
  private at = 0;
  private readonly events = new EventWriter();
  count = 0;

  /** The bytes written since the last take. */
  get size(): number {
    return this.at;
  }

  /** Writes the event of `d` (throws, writing nothing, when a partial input comes without its text). */
  add(d: LoggedDecision): void {
    const w = this.events;
    const split = w.pieces(d);
    const n = w.length;
    const revisions = d.revisions === undefined ? undefined : JSON.stringify(d.revisions);
    this.room(16 + n + (revisions === undefined ? 0 : 3 * revisions.length));
    const b = this.buf;
    let at = this.at;
    b.writeUInt32LE(n, at);
    b.writeUInt32LE(split, at + 4);
    b.writeUInt32LE(d.nd_builtin_cache === undefined ? 0 : HAS_ND_CACHE, at + 8);
    if (revisions === undefined) {
      b.writeUInt32LE(NONE, at + 12);
      at += 16;
    } else {
      const r = b.write(revisions, at + 16);
      b.writeUInt32LE(r, at + 12);
      at += 16 + r;
    }
    w.buf.copy(b, at, 0, n);
    this.at = at + n;
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

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }
}

/**
 * Calls `fn` with each event of a DecisionWriter's Buffer, oldest first: one object, reused
 * from event to event (its pieces are views of `bytes`, valid during the call). After IPC the
 * bytes may arrive as a plain Uint8Array view of the message.
 */
export function readEvents(bytes: Uint8Array, fn: (e: WrittenEvent) => void): void {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const e: WrittenEvent = { buf, start: 0, split: 0, end: 0, ndCache: false, revisions: undefined };
  let at = 0;
  while (at < buf.length) {
    const n = buf.readUInt32LE(at);
    const split = buf.readUInt32LE(at + 4);
    const flags = buf.readUInt32LE(at + 8);
    const r = buf.readUInt32LE(at + 12);
    at += 16;
    e.revisions = undefined;
    if (r !== NONE) {
      e.revisions = JSON.parse(buf.toString('utf8', at, at + r)) as Record<string, string>;
      at += r;
    }
    e.start = at;
    e.split = at + split;
    e.end = at + n;
    e.ndCache = (flags & HAS_ND_CACHE) !== 0;
    at += n;
    fn(e);
  }
}
