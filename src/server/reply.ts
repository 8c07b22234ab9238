// A response as plain data (status, headers, body), so that one handler can answer either
// through Hono (as a web Response) or straight onto Node's ServerResponse (the decision
// fast path), with the same bytes and headers either way.

import type { ServerResponse } from 'node:http';

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

export function toResponse(r: Reply): Response {
  return new Response(r.body, { status: r.status, headers: r.headers });
}

/** Writes a reply with its Content-Length in one writeHead/end (one socket write). */
export function writeReply(res: ServerResponse, r: Reply): void {
  // A reply's headers object is its own (built per reply): add the length in place.
  r.headers['content-length'] = String(typeof r.body === 'string' ? Buffer.byteLength(r.body) : r.body.length);
  res.writeHead(r.status, r.headers);
  res.end(r.body);
}
