// The bounded buffer of decision events waiting for upload. It is limited in bytes
// (buffer_size_limit_bytes: the oldest events are dropped to make room) and in rate
// (max_decisions_per_second: a token bucket refusing the excess); every drop is counted.
//
// It holds events in two forms, oldest first:
// - packed: already compressed into upload bodies (the plugin packs a chunk's worth of events
//   as soon as they are buffered, so the raw bytes of an upload's events are not all kept until
//   the upload: see plugin.ts). A body that fails to upload stays packed for the next attempt.
// - raw: the newest events' JSON as bytes (a ByteQueue, holding the console feed's copy: see
//   byte-queue.ts), not yet a chunk's worth.
// The byte limit counts the events' JSON bytes in both forms; the oldest go first (a packed
// body as a whole), but never a body being sent.

import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { ByteQueue } from './byte-queue.js';

const gunzipAsync = promisify(gunzip);

export interface DropCounters {
  buffer_size_limit_exceeded: number;
  rate_limit_exceeded: number;
  /** Single events larger than the upload size limit (they can never be sent). */
  event_too_large: number;
}

/** Events compressed into one upload body. */
export interface PackedChunk {
  /** The gzipped JSON array. */
  body: Buffer;
  /** Its events' sizes in bytes, in order (to take it apart again). */
  sizes: Int32Array;
  /** Their sum: what the byte limit counts. */
  raw: number;
  /** In a request now: the byte limit passes over it. */
  sending: boolean;
}

export class EventBuffer {
  private queue = new ByteQueue();
  private packed: PackedChunk[] = [];
  private packedEvents = 0;
  private packedBytes = 0;
  readonly dropped: DropCounters = { buffer_size_limit_exceeded: 0, rate_limit_exceeded: 0, event_too_large: 0 };
  private tokens: number;
  private last: number;

  constructor(
    private readonly limitBytes: number | undefined,
    private readonly perSecond: number | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = perSecond ?? 0;
    this.last = this.now();
  }

  /** Events held, packed or raw. */
  get length(): number {
    return this.queue.length + this.packedEvents;
  }

  /** Their JSON bytes. */
  get sizeBytes(): number {
    return this.queue.bytes + this.packedBytes;
  }

  /** The raw events' JSON bytes (not packed yet). */
  get rawBytes(): number {
    return this.queue.bytes;
  }

  /** Whether the rate limit lets one more decision through now (consumes a token). */
  admit(): boolean {
    if (this.perSecond === undefined) return true;
    const t = this.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.dropped.rate_limit_exceeded++;
    return false;
  }

  push(encoded: string): void {
    const limit = this.limitBytes;
    // (a UTF-16 unit is 1 to 3 bytes: counting exactly is needed only near the limit)
    if (limit !== undefined && encoded.length * 3 > limit && Buffer.byteLength(encoded) > limit) {
      this.dropped.buffer_size_limit_exceeded++;
      return;
    }
    this.queue.push(encoded);
    this.evict();
  }

  /** push() for record `seq` of `from`, shared, not copied (see ByteQueue.pushShared). */
  pushShared(from: ByteQueue, seq: number): void {
    if (this.limitBytes !== undefined && from.size(seq) > this.limitBytes) {
      this.dropped.buffer_size_limit_exceeded++;
      return;
    }
    this.queue.pushShared(from, seq);
    this.evict();
  }

  /** Takes all raw events out: the caller owns the queue returned. */
  drain(): ByteQueue {
    const out = this.queue;
    this.queue = new ByteQueue(out.capacity);
    return out;
  }

  /**
   * Takes the oldest raw events out, as many as make a JSON array of at most `maxBytes` (at
   * least one), into a queue of their own (sharing their bytes) that the caller owns.
   */
  takeFront(maxBytes: number): ByteQueue {
    const from = this.queue;
    // room for about as many as fit, at once (a chunk is hundreds of events: no growing from 256)
    const average = from.length ? from.bytes / from.length + 1 : 1;
    const out = new ByteQueue(Math.min(from.length, Math.ceil(maxBytes / average) + 16));
    let raw = 1;
    let s = from.first;
    for (; s < from.end; s++) {
      const size = from.size(s) + 1;
      if (s > from.first && raw + size > maxBytes) break;
      raw += size;
      out.pushShared(from, s);
    }
    from.shiftUntil(s);
    return out;
  }

  /**
   * Puts raw events back (those left in `events`, but the ones it marks skipped) in front of
   * the raw events buffered since, behind the packed ones. Their bytes are shared, not copied.
   */
  requeue(events: ByteQueue): void {
    if (!events.length) {
      events.clear();
      return;
    }
    const q = new ByteQueue(this.queue.capacity);
    for (let s = events.first; s < events.end; s++) q.pushShared(events, s);
    for (let s = this.queue.first; s < this.queue.end; s++) q.pushShared(this.queue, s);
    events.clear();
    this.queue.clear();
    this.queue = q;
    this.evict();
  }

  /** Adds events just packed (they are older than every raw event). */
  addPacked(c: PackedChunk): void {
    this.packed.push(c);
    this.packedEvents += c.sizes.length;
    this.packedBytes += c.raw;
    this.evict();
  }

  /** The packed bodies now, oldest first (a copy). */
  packedNow(): PackedChunk[] {
    return this.packed.slice();
  }

  /** Whether `c` is still held (the byte limit may have dropped it). */
  holdsPacked(c: PackedChunk): boolean {
    return this.packed.includes(c);
  }

  /** Removes a packed body (it was sent); false when the byte limit had dropped it already. */
  removePacked(c: PackedChunk): boolean {
    const i = this.packed.indexOf(c);
    if (i < 0) return false;
    this.packed.splice(i, 1);
    this.packedEvents -= c.sizes.length;
    this.packedBytes -= c.raw;
    return true;
  }

  /**
   * Turns the packed events back into raw ones, in front (for an encoder with another upload
   * size limit). None may be being sent.
   */
  async unpack(): Promise<void> {
    if (!this.packed.length) return;
    // Taken out first: events buffered while they are decompressed may make the byte limit
    // drop packed bodies, and these must not be among them unaccounted. (Until they are back,
    // the limit does not count them.)
    const chunks = this.packed;
    this.packed = [];
    this.packedEvents = 0;
    this.packedBytes = 0;
    const q = new ByteQueue();
    try {
      for (const c of chunks) {
        const json = await gunzipAsync(c.body);
        let at = 1; // after "["
        for (const n of c.sizes) {
          q.pushBytes(json, at, n);
          at += n + 1;
        }
      }
    } catch (err) {
      // (our own gzip output: not expected) the bodies stay packed, as they were
      q.clear();
      this.packed = chunks.concat(this.packed);
      for (const c of chunks) {
        this.packedEvents += c.sizes.length;
        this.packedBytes += c.raw;
      }
      throw err;
    }
    this.requeue(q);
  }

  /** Takes over what `old` holds (a buffer with other limits replaces it), with its drop counts. */
  adopt(old: EventBuffer): void {
    Object.assign(this.dropped, old.dropped);
    for (const c of old.packed.splice(0)) this.addPacked(c);
    this.requeue(old.drain());
  }

  private evict(): void {
    const limit = this.limitBytes;
    if (limit === undefined) return;
    while (this.queue.bytes + this.packedBytes > limit) {
      const c = this.packed.find((p) => !p.sending);
      if (c) {
        this.removePacked(c);
        this.dropped.buffer_size_limit_exceeded += c.sizes.length;
      } else if (this.queue.length) {
        this.queue.shift();
        this.dropped.buffer_size_limit_exceeded++;
      } else return;
    }
  }
}
