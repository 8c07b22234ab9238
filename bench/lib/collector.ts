// A decision-log collector on loopback that accepts every upload (204) and counts bytes,
// uploads and events (gunzipped, without parsing them: each has exactly one "decision_id"
// key), for benches that measure logging and wait until every logged decision arrived.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface CountingCollector {
  url: string;
  bytes: number;
  uploads: number;
  events: number;
  close(): void;
}

export async function countingCollector(): Promise<CountingCollector> {
  const c: CountingCollector = { url: '', bytes: 0, uploads: 0, events: 0, close: () => {} };
  const srv = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      c.bytes += body.length;
      c.uploads++;
      const t = gunzipSync(body).toString();
      for (let i = t.indexOf('"decision_id":'); i >= 0; i = t.indexOf('"decision_id":', i + 1)) c.events++;
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  c.url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  c.close = () => {
    srv.closeAllConnections();
    srv.close();
  };
  return c;
}
