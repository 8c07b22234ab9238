// The decision fast path: a plain `POST /v1/data/<path>` (no query string, a path of
// plain characters) is answered straight from Node's request and response objects.
// Through Hono the same request also builds a web Request, a URL, a Hono context and a
// web Response, and copies the headers twice; that is a third of the server's own CPU
// time per decision. The answer comes from the same dataRead() as the Hono route, so the
// bytes, headers, errors and decision-log events are the same. Anything else (queries
// such as ?pretty, escaped or dotted paths that URL parsing would rewrite, other
// methods) goes through Hono.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerContext } from './context.js';
import { dataReadReply } from './routes/data-read.js';
import { writeReply } from './reply.js';
import { setHandler, type RequestObserver } from './observe.js';
import { errorReply, toHttpError } from './errors.js';

/** Paths whose meaning cannot change under URL normalisation (no %, '.', '?', '#'). */
const PLAIN_DATA_PATH = /^\/v1\/data(?:\/[A-Za-z0-9_\-/]*)?$/;

/** Never mutated: the query of every fast-path request. */
const NO_QUERY = new URLSearchParams();

/** Returns a listener that answers the requests it takes and returns false for the rest. */
export function fastDecision(ctx: ServerContext, obs: RequestObserver): (inc: IncomingMessage, res: ServerResponse) => boolean {
  return (inc, res) => {
    const url = inc.url;
    if (inc.method !== 'POST' || url === undefined || !url.startsWith('/v1/data') || !PLAIN_DATA_PATH.test(url)) return false;
    const start = obs.begin(inc);
    setHandler(inc, 'v1/data');
    dataReadReply(ctx, { method: 'POST', path: url, query: NO_QUERY, incoming: inc })
      .catch((e: unknown) => errorReply(toHttpError(e, 'data')))
      .then((reply) => {
        obs.end(inc, start, reply.status);
        writeReply(res, reply);
      })
      .catch((e: unknown) => {
        // Only a broken socket gets here; the client is gone.
        ctx.logger?.warn({ err: e }, 'writing a response failed');
        res.destroy();
      });
    return true;
  };
}
