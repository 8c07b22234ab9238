// What a worker process (`regolith run --workers N`) asks of the server: requests its owner
// answers (writes, /v1/status, /metrics: the primary holds the one store every worker
// copies, and the plugins), and a hold while every worker switches to a new state together.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Code, HttpError } from './errors.js';

export interface ForwardedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface ForwardedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ClusterHooks {
  /** Whether the owner answers this request. */
  owns(method: string, path: string): boolean;
  forward(req: ForwardedRequest): Promise<ForwardedResponse>;
  /** While every worker switches state: a promise new requests wait for; otherwise undefined. */
  hold(): Promise<void> | undefined;
  /** Each connection the listeners accept (counted to spread connections over the workers). */
  connection?(socket: Socket): void;
  /** Whether the response to this request closes its connection (this worker holds more than its share). */
  shed?(socket: Socket): boolean;
}

/** Reads the request (within maxBytes), has the owner answer it, and writes the answer; resolves with the status sent. */
export async function forwardRequest(hooks: ClusterHooks, inc: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<number> {
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of inc as AsyncIterable<Buffer>) {
      size += c.length;
      if (size > maxBytes) throw new HttpError(413, Code.invalidParameter, 'request body too large');
      chunks.push(c);
    }
    const r = await hooks.forward({ method: inc.method ?? 'GET', url: inc.url ?? '/', headers: inc.headers, body: Buffer.concat(chunks) });
    res.writeHead(r.status, r.headers);
    res.end(r.body);
    return r.status;
  } catch (e) {
    const err = e instanceof HttpError ? e : new HttpError(500, Code.internal, `the primary process did not answer: ${(e as Error).message}`);
    if (!res.headersSent) res.writeHead(err.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(err.body) + '\n');
    // an unread rest of a refused body is drained, not left to stall the connection
    if (!inc.complete) inc.resume();
    return err.status;
  }
}
