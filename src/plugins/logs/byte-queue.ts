// A first-in first-out queue of JSON texts held as UTF-8 bytes outside the JS heap.
//
// Why: a logged event waits 1-2 s for its upload (and the console feed keeps the last
// thousand). Kept as JS strings, every one of them survived two scavenges (copied each time)
// into the old generation, where only the next major GC freed it: ~10 µs of garbage
// collection per logged decision, more than writing the event. Here the text is written
// once into a slab (a Buffer, whose bytes V8 never scans nor moves) and the string dies
// young. Per record the queue keeps three integers in typed arrays: no object per event.
//
// Each record is followed by a "," in its slab, so consecutive records are already the
// inside of a JSON array: a chunk is copied out with one memcpy per slab (`copyArray`).
// Records never straddle slabs; one larger than a slab gets a slab of its own. Emptied
// slabs go back to a small pool shared by every queue (the feed and the upload buffer).
//
// A queue may also hold records of another queue's slabs without copying them (`pushShared`:
// the upload buffer holds the feed's copy of each event). A slab held by more than one queue
// counts its holders, goes back to the pool when the last one lets go, and is written only by
// the queue that made it.

const SLAB = 64 * 1024;
/** Spare slabs kept for reuse at most (4 MiB): enough for a second or two of events at a few thousand a second. */
const POOL_MAX = 64;
const pool: Buffer[] = [];

function newSlab(min: number): Buffer {
  if (min <= SLAB) return pool.pop() ?? Buffer.allocUnsafeSlow(SLAB);
  return Buffer.allocUnsafeSlow(min);
}

/** Holders of the slabs held by more than one queue (a slab not here has one; weak: queues dropped without clear() leave nothing behind). */
const holders = new WeakMap<Buffer, number>();

function holdSlab(s: Buffer): void {
  holders.set(s, (holders.get(s) ?? 1) + 1);
}

function freeSlab(s: Buffer): void {
  const h = holders.get(s);
  if (h !== undefined) {
    if (h > 2) holders.set(s, h - 1);
    else holders.delete(s);
    return;
  }
  if (s.length === SLAB && pool.length < POOL_MAX) pool.push(s);
}

/** The most records a new queue makes room for at once (12 bytes each): a burst's size is not kept for ever. */
const MAX_INITIAL_RECORDS = 65536;

/** Marks a record left out (a skipped length is stored as its bitwise complement). */
const SKIPPED = -1;

export class ByteQueue {
  /** Live slabs, oldest first; slabs[i] has number firstSlab + i. */
  private slabs: Buffer[] = [];
  private firstSlab = 0;
  /** Where the next record goes in the last slab (-1: the last slab is another queue's, not written here). */
  private pos = 0;
  // Records: slab number, start offset and byte length; array positions head..tail.
  private recSlab: Int32Array<ArrayBuffer>;
  private recStart: Int32Array<ArrayBuffer>;
  private recLen: Int32Array<ArrayBuffer>;
  private head = 0;
  private tail = 0;
  /** Sequence number of the record at `head` (sequence numbers never change while a record lives). */
  private firstSeq = 0;
  private total = 0;

  /**
   * `records`: room for this many records before the arrays grow (the upload buffer passes
   * its last queue's, so that each upload's new queue does not grow them again from 256:
   * fresh memory, page faults on the request path).
   */
  constructor(records = 256) {
    const n = Math.min(Math.max(records, 256), MAX_INITIAL_RECORDS);
    this.recSlab = new Int32Array(n);
    this.recStart = new Int32Array(n);
    this.recLen = new Int32Array(n);
  }

  /** Room for records before the arrays grow. */
  get capacity(): number {
    return this.recLen.length;
  }

  /** Records in the queue. */
  get length(): number {
    return this.tail - this.head;
  }

  /** Their bytes (the "," after each not counted). */
  get bytes(): number {
    return this.total;
  }

  /** Sequence number of the oldest record. */
  get first(): number {
    return this.firstSeq;
  }

  /** Sequence number the next record will get (first + length). */
  get end(): number {
    return this.firstSeq + this.tail - this.head;
  }

  /** Appends `text`; returns its size in UTF-8 bytes. */
  push(text: string): number {
    let slab = this.slabs[this.slabs.length - 1];
    // Up to 3 bytes per UTF-16 unit, and the ",": counting exactly is a second pass, only near a slab's end.
    if (!slab || this.pos < 0 || this.pos + 3 * text.length + 1 > slab.length) {
      const n = Buffer.byteLength(text);
      if (!slab || this.pos < 0 || this.pos + n + 1 > slab.length) slab = this.addSlab(n + 1);
    }
    const start = this.pos;
    const n = slab.write(text, start);
    slab[start + n] = 0x2c; // ,
    this.pos = start + n + 1;
    this.addRecord(this.firstSlab + this.slabs.length - 1, start, n);
    return n;
  }

  /** Appends the bytes src[start, start + n) as one record (a copy, no decoding). */
  pushBytes(src: Buffer, start: number, n: number): void {
    let slab = this.slabs[this.slabs.length - 1];
    if (!slab || this.pos < 0 || this.pos + n + 1 > slab.length) slab = this.addSlab(n + 1);
    const at = this.pos;
    src.copy(slab, at, start, start + n);
    slab[at + n] = 0x2c; // ,
    this.pos = at + n + 1;
    this.addRecord(this.firstSlab + this.slabs.length - 1, at, n);
  }

  /**
   * Appends record `seq` of `from` (unless it was skipped) without copying its bytes: this
   * queue holds `from`'s slab too, until its records here are gone.
   */
  pushShared(from: ByteQueue, seq: number): void {
    const i = from.index(seq);
    const n = from.recLen[i]!;
    if (n < 0) return;
    const slab = from.slabs[from.recSlab[i]! - from.firstSlab]!;
    if (this.slabs[this.slabs.length - 1] !== slab) {
      holdSlab(slab);
      this.slabs.push(slab);
      this.pos = -1;
    }
    this.addRecord(this.firstSlab + this.slabs.length - 1, from.recStart[i]!, n);
  }

  /** Byte size of record `seq` (0 for a skipped one). */
  size(seq: number): number {
    return Math.max(this.recLen[this.index(seq)]!, 0);
  }

  /** The text of record `seq`. */
  text(seq: number): string {
    const i = this.index(seq);
    const s = this.recStart[i]!;
    return this.slabs[this.recSlab[i]! - this.firstSlab]!.toString('utf8', s, s + Math.max(this.recLen[i]!, 0));
  }

  /** Whether record `seq` was marked left out. */
  skipped(seq: number): boolean {
    return this.recLen[this.index(seq)]! < 0;
  }

  /** Marks record `seq` left out: it stays until shifted but is never copied again. */
  skip(seq: number): void {
    const i = this.index(seq);
    const n = this.recLen[i]!;
    if (n < 0) return;
    this.total -= n;
    this.recLen[i] = SKIPPED;
  }

  /** Removes the oldest record; returns its size in bytes. */
  shift(): number {
    if (this.head === this.tail) return 0;
    const n = Math.max(this.recLen[this.head]!, 0);
    this.total -= n;
    this.head++;
    this.firstSeq++;
    if (this.head === this.tail) this.clear();
    else this.releaseBefore(this.recSlab[this.head]!);
    return n;
  }

  /** Removes the records before sequence number `seq`. */
  shiftUntil(seq: number): void {
    while (this.firstSeq < seq && this.head < this.tail) this.shift();
  }

  /**
   * Writes the JSON array of the records [from, to) (at least one, none skipped) into `out`
   * from 0: "[", the records separated by ",", "]"; returns its size, 1 + the sum of
   * (size + 1). `out` must be that large.
   */
  copyArray(from: number, to: number, out: Buffer): number {
    out[0] = 0x5b; // [
    let at = 1;
    let i = this.index(from);
    const last = this.index(to);
    while (i < last) {
      if (this.recLen[i]! < 0) throw new Error(`decision log queue: record ${this.firstSeq + i - this.head} was left out`);
      // One run: consecutive records of one slab, contiguous with their ","s.
      const slab = this.recSlab[i]!;
      const runStart = this.recStart[i]!;
      let runEnd = runStart + this.recLen[i]! + 1;
      i++;
      while (i < last && this.recSlab[i] === slab && this.recStart[i] === runEnd && this.recLen[i]! >= 0) {
        runEnd += this.recLen[i]! + 1;
        i++;
      }
      at += this.slabs[slab - this.firstSlab]!.copy(out, at, runStart, runEnd);
    }
    out[at - 1] = 0x5d; // ] over the last ","
    return at;
  }

  /** Removes everything and gives the slabs back. */
  clear(): void {
    for (const s of this.slabs) freeSlab(s);
    this.firstSeq += this.tail - this.head;
    this.slabs = [];
    this.pos = 0;
    this.head = this.tail = 0;
    this.total = 0;
  }

  private index(seq: number): number {
    const i = this.head + (seq - this.firstSeq);
    if (seq < this.firstSeq || i > this.tail) throw new RangeError(`decision log queue: record ${seq} is not in ${this.firstSeq}..${this.end}`);
    return i;
  }

  private addSlab(min: number): Buffer {
    const s = newSlab(min);
    this.slabs.push(s);
    this.pos = 0;
    return s;
  }

  private addRecord(slab: number, start: number, n: number): void {
    if (this.tail === this.recLen.length) this.makeRoom();
    const t = this.tail++;
    this.recSlab[t] = slab;
    this.recStart[t] = start;
    this.recLen[t] = n;
    this.total += n;
  }

  /** At the end of the record arrays: moves the live records to the front, or doubles the arrays. */
  private makeRoom(): void {
    const live = this.tail - this.head;
    if (live * 2 <= this.recLen.length) {
      this.recSlab.copyWithin(0, this.head, this.tail);
      this.recStart.copyWithin(0, this.head, this.tail);
      this.recLen.copyWithin(0, this.head, this.tail);
    } else {
      const grow = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
        const b = new Int32Array(a.length * 2);
        b.set(a.subarray(this.head, this.tail));
        return b;
      };
      this.recSlab = grow(this.recSlab);
      this.recStart = grow(this.recStart);
      this.recLen = grow(this.recLen);
    }
    this.head = 0;
    this.tail = live;
  }

  /** Gives back the slabs numbered below `slab` (no record left in them). */
  private releaseBefore(slab: number): void {
    while (this.firstSlab < slab) {
      freeSlab(this.slabs.shift()!);
      this.firstSlab++;
    }
  }
}
