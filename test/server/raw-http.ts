// A raw HTTP client (node:http) for tests that must see bytes as sent: fetch would
// transparently gunzip responses.
import * as http from 'node:http';

export function rawRequest(
  url: string,
  method: string,
  body?: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const r = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    r.on('error', reject);
    if (body !== undefined) r.write(body);
    r.end();
  });
}
