// The decision fast path: a plain `POST /v1/data/<path>` (no query string, a path of
// plain characters) is answered straight from Node's request and response objects.
// Through Hono the same request also builds a web Request, a URL, a Hono context and a
// web Response, and copies the headers twice. Here the body is collected with stream
// callbacks and, when evaluation needs no I/O, the reply is written in the tick the last
// body chunk arrived: no promise, no microtask hop. The answer comes from the same
// answerDataRead() as the Hono route, so the bytes, headers, errors and decision-log
// events are the same. Anything else (queries such as ?pretty, escaped or dotted paths
// that URL parsing would rewrite, other methods) goes through Hono.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerContext } from './context.js';
import { answerPost, NO_PARAMS, type DataReadRequest } from './routes/data-read.js';
import { writeReply, type Reply } from './reply.js';
import type { RequestObserver } from './observe.js';
import { errorReply, toHttpError } from './errors.js';
import { collectBody, gunzipBody, isGzipped, type RequestHead } from './body.js';
import { isPlainDecision } from './raw-head.js';

/** Never mutated: the query of every fast-path request. */
const NO_QUERY = new URLSearchParams();

/** The Prometheus handler label of decisions. */
export const DECISION_HANDLER = 'v1/data';

/** Returns a listener that answers the requests it takes and returns false for the rest. */
export function fastDecision(ctx: ServerContext, obs: RequestObserver): (inc: IncomingMessage, res: ServerResponse) => boolean {
  return (inc, res) => {
    const url = inc.url;
    if (inc.method !== 'POST' || url === undefined || !isPlainDecision(url)) return false;
    const start = obs.begin(inc);
    const send = (reply: Reply): void => {
      obs.end(inc, start, reply.status, DECISION_HANDLER);
      try {
        writeReply(res, reply);
      } catch (e) {
        broken(e);
      }
    };
    const broken = (e: unknown): void => {
      // Only a broken socket gets here; the client is gone.
      ctx.logger?.warn({ err: e }, 'writing a response failed');
      res.destroy();
    };
    collectBody(inc, ctx.limits, (err, body) => {
      const out = err ? errorReply(toHttpError(err, 'data')) : answerDecision(ctx, inc, body);
      if (out instanceof Promise) out.then(send, broken);
      else send(out);
    });
    return true;
  };
}

/**
 * The reply to a plain decision whose body has been read (gunzipped here when it says
 * gzip): synchronous unless evaluation or gzip waits; errors are replies, never thrown.
 */
export function answerDecision(ctx: ServerContext, inc: RequestHead, body: Buffer): Reply | Promise<Reply> {
  const r: DataReadRequest = { method: 'POST', path: inc.url!, query: NO_QUERY, incoming: inc };
  let out: Reply | Promise<Reply>;
  try {
    out = isGzipped(undefined, inc)
      ? gunzipBody(body, ctx.limits).then((plain) => answerPost(ctx, r, NO_PARAMS, plain))
      : answerPost(ctx, r, NO_PARAMS, body);
  } catch (e) {
    return errorReply(toHttpError(e, 'data'));
  }
  return out instanceof Promise ? out.catch((e: unknown) => errorReply(toHttpError(e, 'data'))) : out;
}
