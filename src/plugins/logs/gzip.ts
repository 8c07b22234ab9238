// One gzip stream reused for every chunk an encoder compresses, on libuv's thread pool.
//
// node:zlib's one-shot gzip() makes a new stream and a new zlib state (~300 KB, allocated
// and released) per call: for a 300 KB chunk of decision events that cost ~200-400 µs on the
// event loop and ~1.2-1.4 ms in all, against ~100-170 µs and ~0.8-1.1 ms with one stream
// kept and reset between chunks (bench, level 1, RBAC events). Each chunk is still a
// complete gzip member: written and finished in one write (the stream's flush flag is
// Z_FINISH), then the stream is reset. A write followed by flush(Z_FINISH) took two jobs on
// the thread pool, and at a loaded machine's prices each round trip costs the event loop
// 35-100 µs of wake-up (bench/README, sixth step).

import { constants, createGzip, gzip, type Gzip, type ZlibOptions } from 'node:zlib';

export class ChunkGzip {
  private z: Gzip | undefined;
  private busy = false;

  constructor(private readonly options: ZlibOptions) {}

  /** The gzip of `input`, which must not change until this resolves. */
  compress(input: Buffer): Promise<Buffer> {
    // A second chunk at the same time (never from one encoder): a one-shot stream of its own.
    if (this.busy) return new Promise((resolve, reject) => gzip(input, this.options, (err, out) => (err ? reject(err) : resolve(out))));
    this.busy = true;
    const z = (this.z ??= createGzip({ ...this.options, chunkSize: 64 * 1024, flush: constants.Z_FINISH }));
    return new Promise<Buffer>((resolve, reject) => {
      const out: Buffer[] = [];
      const onData = (b: Buffer): void => void out.push(b);
      const done = (): void => {
        z.off('data', onData);
        z.off('error', onError);
        this.busy = false;
      };
      const onError = (err: Error): void => {
        done();
        // A failed stream is not reused.
        if (this.z === z) this.z = undefined;
        z.destroy();
        reject(err);
      };
      z.on('data', onData);
      z.on('error', onError);
      // Deflated and finished in one job (more only when the output passes 64 KiB); the
      // output is pushed ('data') before the write's callback runs.
      z.write(input, (err) => {
        if (err || z.destroyed || !this.busy) return;
        done();
        // (Gzip has reset() as every deflate stream; @types/node leaves it out)
        (z as Gzip & { reset(): void }).reset();
        resolve(out.length === 1 ? out[0]! : Buffer.concat(out));
      });
    });
  }

  /** Frees the stream (a later compress makes a new one). */
  close(): void {
    this.z?.destroy();
    this.z = undefined;
  }
}
