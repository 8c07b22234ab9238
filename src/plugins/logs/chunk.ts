// Cutting buffered events into gzipped JSON arrays no larger than upload_size_limit_bytes
// (compressed), as OPA's chunk encoder does. An event that alone exceeds the limit cannot
// ever be sent and is returned separately.

import { gzipSync } from 'node:zlib';

export interface Chunk {
  body: Buffer;
  events: string[];
}

function encode(events: string[]): Buffer {
  return gzipSync(Buffer.from('[' + events.join(',') + ']'));
}

export function chunkEvents(events: string[], limitBytes: number): { chunks: Chunk[]; tooLarge: string[] } {
  const chunks: Chunk[] = [];
  const tooLarge: string[] = [];
  let cur: string[] = [];
  let curBody: Buffer | undefined;
  let rawSize = 2;
  for (const ev of events) {
    const next = [...cur, ev];
    rawSize += Buffer.byteLength(ev) + 1;
    // Uncompressed size bounds the compressed one (plus gzip's ~20 byte framing).
    const body = rawSize + 32 <= limitBytes ? undefined : encode(next);
    if (body === undefined || body.length <= limitBytes) {
      cur = next;
      curBody = body;
      continue;
    }
    if (cur.length) chunks.push({ body: curBody ?? encode(cur), events: cur });
    const alone = encode([ev]);
    if (alone.length > limitBytes) {
      tooLarge.push(ev);
      cur = [];
      curBody = undefined;
      rawSize = 2;
    } else {
      cur = [ev];
      curBody = alone;
      rawSize = 2 + Buffer.byteLength(ev) + 1;
    }
  }
  if (cur.length) chunks.push({ body: curBody ?? encode(cur), events: cur });
  return { chunks, tooLarge };
}
