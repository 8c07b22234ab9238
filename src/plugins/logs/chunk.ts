// Cutting buffered events into gzipped JSON arrays no larger than upload_size_limit_bytes
// (compressed), in time linear in the events, as OPA's chunk encoder does.
//
// A chunk's compressed size is only known once it is compressed, and compressing the growing
// chunk again for every event is quadratic. So, as OPA, the encoder cuts chunks at an
// *uncompressed* size, `rawLimit`, and compresses each chunk once when it is cut; `rawLimit`
// adapts to what the events compress to:
// - it starts at a raw size whose gzip can never exceed the limit (deflate's worst case);
// - after each full chunk it becomes the raw size that, at the ratio that chunk compressed
//   to, fills ~95% of the limit (growing at most 8x per chunk, for a first small sample);
// - a chunk that still comes out over the limit (the events compress worse than the last
//   ones did) is cut again at a raw size from its own ratio, and so on: each level is at
//   most as much work as the chunk itself, and it rarely happens twice in a row.
// Each event is thus compressed about once. An event that alone exceeds the limit once
// compressed can never be sent; it is counted (`tooLarge`), reported to `onTooLarge` and left out.
//
// gzip runs on libuv's thread pool (node:zlib's asynchronous gzip), never on the event loop:
// compressing a 32 KiB chunk takes a few milliseconds, which gzipSync stalled every decision
// for. Adding an event is synchronous (`offer`); only cutting a chunk awaits.
//
// gzip runs at its fastest level (Z_BEST_SPEED): on decision events it takes ~2.5x less CPU
// than the default level for 15-35% more bytes (ratio ~8.5x instead of ~10x on one chunk; 47-54
// bytes per RBAC event uploaded instead of 38-40 in bench/http.ts), and at the default level
// compressing was the largest single item of a logged decision's CPU. OPA compresses at Go's
// default level; a collector reads either.

import { constants, gzip, gzipSync } from 'node:zlib';

/** The gzip options of every chunk (and of the plugin's check that one event fits alone). */
export const GZIP_OPTIONS = Object.freeze({ level: constants.Z_BEST_SPEED });

/** The gzipped size of one event sent alone (`[event]`), as the encoder would compress it. */
export function gzippedAloneSize(event: string): number {
  return gzipSync('[' + event + ']', GZIP_OPTIONS).length;
}

export interface Chunk {
  body: Buffer;
  events: string[];
}

/** Share of the limit a chunk is aimed at (gzip's output varies a little with the events). */
const TARGET = 0.95;
/** When a chunk came out over the limit, its events are cut again aiming this low. */
const RETRY_TARGET = 0.85;
/** rawLimit grows at most this much from one chunk to the next. */
const MAX_GROWTH = 8;
/** gzip's header and trailer (18 bytes) and the final deflate block, about. */
const GZIP_OVERHEAD = 24;

/**
 * The largest raw size whose gzip can never exceed `limit`: deflate stores incompressible
 * input in blocks of at most 64 KiB with 5 bytes each (zlib's deflateBound is about
 * n + n/4096 + n/16384 + 13), plus the gzip wrapper.
 */
export function safeRawSize(limit: number): number {
  return Math.max(0, Math.floor((limit - 64) / (1 + 1 / 2048)));
}

export interface EncoderWork {
  /** Calls to gzip. */
  gzipCalls: number;
  /** Bytes handed to gzip: about the raw size of the events when each is compressed once. */
  bytesGzipped: number;
}

export class ChunkEncoder {
  /** Uncompressed size at which the pending chunk is cut. */
  private rawLimit: number;
  private readonly safeRaw: number;
  private readonly maxRaw: number;
  private pending: string[] = [];
  /** Raw size of the pending chunk's JSON array: "[", each event and one "," or "]" after it. */
  private pendingRaw = 1;
  /** The work done so far (tests check it grows linearly with the events). */
  readonly work: EncoderWork = { gzipCalls: 0, bytesGzipped: 0 };
  /** Events left out so far because alone they exceed the limit once compressed. */
  tooLarge = 0;

  constructor(
    readonly limit: number,
    private readonly onTooLarge: (event: string) => void = () => {},
  ) {
    this.safeRaw = safeRawSize(limit);
    this.rawLimit = this.safeRaw;
    // Very compressible events would make very large chunks (one gzip call blocks the event
    // loop that long): at most 64x the limit raw, or 8 MiB when the limit itself is smaller.
    this.maxRaw = Math.max(this.safeRaw, Math.min(64 * limit, 8 * 1024 * 1024));
  }

  /** The raw size chunks are cut at now. */
  get uncompressedLimit(): number {
    return this.rawLimit;
  }

  /**
   * Adds one encoded event to the pending chunk, synchronously; false (the event is not
   * taken) when the chunk is full: flush() it, then offer the event again (an empty chunk
   * takes any event).
   */
  offer(event: string): boolean {
    const size = Buffer.byteLength(event) + 1;
    if (this.pending.length && this.pendingRaw + size > this.rawLimit) return false;
    this.pending.push(event);
    this.pendingRaw += size;
    return true;
  }

  /** Adds one encoded event; resolves to the chunks it completed (usually none). */
  async write(event: string): Promise<readonly Chunk[]> {
    if (this.offer(event)) return NONE;
    const out = await this.flush();
    this.offer(event);
    return out;
  }

  /**
   * Compresses the pending chunk (when full, or at the end of an upload) into chunks under
   * the limit. The pending chunk is empty while it runs; if gzip fails, its events are put
   * back in front of the pending ones and the error is thrown.
   */
  async flush(): Promise<readonly Chunk[]> {
    if (!this.pending.length) return NONE;
    const raw = this.pendingRaw;
    const events = this.takePending();
    const out: Chunk[] = [];
    try {
      await this.encode(events, raw, out);
    } catch (err) {
      this.pending = events.concat(this.pending);
      this.pendingRaw = raw + this.pendingRaw - 1;
      throw err;
    }
    return out;
  }

  /** Takes back the pending events without encoding them (an upload failed). */
  takePending(): string[] {
    const out = this.pending;
    this.pending = [];
    this.pendingRaw = 1;
    return out;
  }

  /** gzip of the JSON array of `events`, whose size is `raw` bytes. */
  private gzip(events: string[], raw: number): Promise<Buffer> {
    const text = arrayBytes(events, raw);
    this.work.gzipCalls++;
    this.work.bytesGzipped += text.length;
    return new Promise((resolve, reject) => gzip(text, GZIP_OPTIONS, (err, body) => (err ? reject(err) : resolve(body))));
  }

  /** Compresses `events` into chunks under the limit and learns from the result; `raw`: the size of their JSON array. */
  private async encode(events: string[], raw: number, out: Chunk[]): Promise<void> {
    const body = await this.gzip(events, raw);
    if (body.length <= this.limit) {
      out.push({ body, events });
      // Learn only from chunks cut near the raw limit: a small one compresses worse.
      if (raw * 2 >= this.rawLimit) this.rawLimit = this.aim(raw, body.length, TARGET, this.rawLimit * MAX_GROWTH);
      return;
    }
    if (events.length === 1) {
      this.tooLarge++;
      this.onTooLarge(events[0]!);
      return;
    }
    // Over the limit: aim lower for these events and for the ones to come.
    const cutAt = this.aim(raw, body.length, RETRY_TARGET, raw - 1);
    this.rawLimit = cutAt;
    let part: string[] = [];
    let partRaw = 1;
    for (const e of events) {
      const size = Buffer.byteLength(e) + 1;
      if (part.length && partRaw + size > cutAt) {
        await this.encode(part, partRaw, out);
        part = [];
        partRaw = 1;
      }
      part.push(e);
      partRaw += size;
    }
    await this.encode(part, partRaw, out);
  }

  /** The raw size that, at the ratio `raw` compressed to `compressed`, gives `target` of the limit. */
  private aim(raw: number, compressed: number, target: number, ceiling: number): number {
    const perByte = Math.max(compressed - GZIP_OVERHEAD, 1) / raw;
    const want = Math.floor((target * this.limit - GZIP_OVERHEAD) / perByte);
    return Math.max(this.safeRaw, Math.min(want, ceiling, this.maxRaw));
  }
}

const NONE: readonly Chunk[] = Object.freeze([]);

/**
 * The bytes of the JSON array `[e1,e2,...]`, `raw` of them, each event written straight into
 * one buffer: joining the events into one string and encoding that copied every byte twice
 * more (~1.4 µs per event against ~0.2).
 */
function arrayBytes(events: string[], raw: number): Buffer {
  const buf = Buffer.allocUnsafe(raw);
  let off = 0;
  buf[off++] = 0x5b; // [
  for (let i = 0; i < events.length; i++) {
    if (i) buf[off++] = 0x2c; // ,
    off += buf.write(events[i]!, off);
  }
  buf[off++] = 0x5d; // ]
  if (off !== raw) throw new Error(`decision log chunk: ${off} bytes written for ${raw} counted`);
  return buf;
}

/** All of `events` in chunks (one encoder, used once); events over the limit in `tooLarge`. */
export async function chunkEvents(events: string[], limitBytes: number): Promise<{ chunks: Chunk[]; tooLarge: string[] }> {
  const tooLarge: string[] = [];
  const enc = new ChunkEncoder(limitBytes, (e) => tooLarge.push(e));
  const chunks: Chunk[] = [];
  for (const e of events) {
    if (enc.offer(e)) continue;
    for (const c of await enc.flush()) chunks.push(c);
    enc.offer(e);
  }
  for (const c of await enc.flush()) chunks.push(c);
  return { chunks, tooLarge };
}
