// A decision-log collector on loopback that only counts the events it receives (gunzipped,
// one per "decision_id"), for benches that wait until every logged decision arrived.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface CountingCollector {
  url: string;
  events: number;
  close(): void;
}

export async function countingCollector(): Promise<CountingCollector> {
  const c: CountingCollector = { url: '', events: 0, close: () => {} };
  const srv = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const t = gunzipSync(Buffer.concat(parts)).toString();
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
