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
// gzip runs on libuv's thread pool (one node:zlib stream, reused: gzip.ts), never on the
// event loop: compressing a 32 KiB chunk takes a few milliseconds, which gzipSync stalled
// every decision for. The events are records of a ByteQueue (bytes, not strings): a chunk's JSON array is
// copied out of the queue's slabs into one reused buffer, a memcpy per slab.
//
// gzip runs at its fastest level (Z_BEST_SPEED): on decision events it takes ~2.5x less CPU
// than the default level for 15-35% more bytes (ratio ~8.5x instead of ~10x on one chunk; 47-54
// bytes per RBAC event uploaded instead of 38-40 in bench/http.ts), and at the default level
// compressing was the largest single item of a logged decision's CPU. OPA compresses at Go's
// default level; a collector reads either.

import { constants, gzipSync } from 'node:zlib';
import { ByteQueue } from './byte-queue.js';
import { ChunkGzip } from './gzip.js';

/** The gzip options of every chunk (and of the plugin's check that one event fits alone). */
export const GZIP_OPTIONS = Object.freeze({ level: constants.Z_BEST_SPEED });

/** The gzipped size of one event sent alone (`[event]`), as the encoder would compress it. */
export function gzippedAloneSize(event: string): number {
  return gzipSync('[' + event + ']', GZIP_OPTIONS).length;
}

export interface Chunk {
  body: Buffer;
  /** Its events: the records [from, to) of the queue it was cut from. */
  from: number;
  to: number;
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
  /** The raw JSON array handed to gzip, reused from chunk to chunk (one gzip at a time). */
  private scratch = Buffer.alloc(0);
  private scratchBusy = false;
  private readonly gz = new ChunkGzip(GZIP_OPTIONS);
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

  /** Frees the gzip stream (the encoder still works: it makes a new one). */
  close(): void {
    this.gz.close();
  }

  /** The raw size chunks are cut at now. */
  get uncompressedLimit(): number {
    return this.rawLimit;
  }

  /**
   * Cuts the next chunk from the records of `q` at `from` on: as many as fit in the raw limit
   * (at least one), compressed into chunks under the limit (usually one; more when they
   * compressed worse than the last ones). A record that alone exceeds the limit once
   * compressed is marked skipped in `q`, counted and reported. Resolves to the chunks and
   * the sequence number after the records taken; nothing in `q` moves but those marks (if
   * gzip fails, it throws and the records are still there).
   */
  async next(q: ByteQueue, from: number): Promise<{ chunks: Chunk[]; next: number }> {
    let raw = 1;
    let to = from;
    for (const end = q.end; to < end; to++) {
      const size = q.size(to) + 1;
      if (to > from && raw + size > this.rawLimit) break;
      raw += size;
    }
    const chunks: Chunk[] = [];
    if (to > from) await this.encode(q, from, to, raw, chunks);
    return { chunks, next: to };
  }

  /** gzip of the JSON array of records [from, to), whose size is `raw` bytes. */
  private async gzip(q: ByteQueue, from: number, to: number, raw: number): Promise<Buffer> {
    let buf = this.scratch;
    const own = !this.scratchBusy;
    if (!own) buf = Buffer.allocUnsafe(raw);
    else if (buf.length < raw) buf = this.scratch = Buffer.allocUnsafeSlow(Math.max(raw, 2 * buf.length));
    const n = q.copyArray(from, to, buf);
    if (n !== raw) throw new Error(`decision log chunk: ${n} bytes written for ${raw} counted`);
    this.work.gzipCalls++;
    this.work.bytesGzipped += raw;
    if (own) this.scratchBusy = true;
    try {
      return await this.gz.compress(buf.subarray(0, raw));
    } finally {
      if (own) this.scratchBusy = false;
    }
  }

  /** Compresses records [from, to) into chunks under the limit and learns from the result; `raw`: the size of their JSON array. */
  private async encode(q: ByteQueue, from: number, to: number, raw: number, out: Chunk[]): Promise<void> {
    const body = await this.gzip(q, from, to, raw);
    if (body.length <= this.limit) {
      out.push({ body, from, to });
      // Learn only from chunks cut near the raw limit: a small one compresses worse.
      if (raw * 2 >= this.rawLimit) this.rawLimit = this.aim(raw, body.length, TARGET, this.rawLimit * MAX_GROWTH);
      return;
    }
    if (to - from === 1) {
      this.tooLarge++;
      this.onTooLarge(q.text(from));
      q.skip(from);
      return;
    }
    // Over the limit: aim lower for these records and for the ones to come.
    const cutAt = this.aim(raw, body.length, RETRY_TARGET, raw - 1);
    this.rawLimit = cutAt;
    let part = from;
    let partRaw = 1;
    for (let s = from; s < to; s++) {
      const size = q.size(s) + 1;
      if (s > part && partRaw + size > cutAt) {
        await this.encode(q, part, s, partRaw, out);
        part = s;
        partRaw = 1;
      }
      partRaw += size;
    }
    await this.encode(q, part, to, partRaw, out);
  }

  /** The raw size that, at the ratio `raw` compressed to `compressed`, gives `target` of the limit. */
  private aim(raw: number, compressed: number, target: number, ceiling: number): number {
    const perByte = Math.max(compressed - GZIP_OVERHEAD, 1) / raw;
    const want = Math.floor((target * this.limit - GZIP_OVERHEAD) / perByte);
    return Math.max(this.safeRaw, Math.min(want, ceiling, this.maxRaw));
  }
}

/**
 * All of `events` in chunks (one encoder, used once), each with its events' texts; events
 * over the limit in `tooLarge`. For tests and tools: the plugin feeds its queue directly.
 */
export async function chunkEvents(events: string[], limitBytes: number, enc = new ChunkEncoder(limitBytes)): Promise<{ chunks: { body: Buffer; events: string[] }[]; tooLarge: string[] }> {
  const q = new ByteQueue();
  for (const e of events) q.push(e);
  const before = enc.tooLarge;
  const tooLarge: string[] = [];
  const chunks: { body: Buffer; events: string[] }[] = [];
  for (let s = q.first; s < q.end; ) {
    const r = await enc.next(q, s);
    for (const c of r.chunks) chunks.push({ body: c.body, events: events.slice(c.from - q.first, c.to - q.first) });
    for (; s < r.next; s++) if (q.skipped(s)) tooLarge.push(events[s - q.first]!);
  }
  q.clear();
  enc.close();
  if (tooLarge.length !== enc.tooLarge - before) throw new Error('chunkEvents: skipped events miscounted');
  return { chunks, tooLarge };
}
