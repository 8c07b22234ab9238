// The Node request listener: the decision fast path first (fast-decision.ts), then the
// Hono app through @hono/node-server. Both are observed here (duration histogram and
// request logging) rather than in Hono middleware.

import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { CreatedApp } from './app.js';
import { handlerOf, RequestObserver } from './observe.js';
import { requestSpans } from './request-spans.js';
import { fastDecision } from './fast-decision.js';
import { createGate } from './access/gate.js';
import { forwardRequest } from './cluster.js';
import type { RawDecisionOptions } from './raw-decisions.js';

type NodeEnv = { incoming: IncomingMessage; outgoing: ServerResponse };

export interface Listeners {
  /** The fetch callback to give @hono/node-server (the app, observed). */
  fetch: (req: Request, env: NodeEnv) => Response | Promise<Response>;
  /** Wraps @hono/node-server's request listener with the fast path. */
  wrap: (hono: RequestListener) => RequestListener;
  /**
   * What decisions answered below Node's HTTP layer need (raw-decisions.ts); undefined
   * when every request must pass through the listener (authorization gate, tracing, the
   * diagnostic server).
   */
  raw: RawDecisionOptions | undefined;
}

/** The path of a request URL; the URL itself when it has no query (no copy on the decision path). */
const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

export function createListeners(created: CreatedApp, logger?: Logger): Listeners {
  const obs = new RequestObserver(created.durations, logger);
  const fast = fastDecision(created.ctx, obs);
  const fetch = (req: Request, env: NodeEnv): Response | Promise<Response> => {
    const inc = env.incoming;
    const start = obs.begin(inc);
    let r: Response | Promise<Response>;
    try {
      r = created.app.fetch(req, env);
    } catch (e) {
      obs.end(inc, start, 500);
      throw e;
    }
    if (!(r instanceof Promise)) {
      obs.end(inc, start, r.status);
      return r;
    }
    return r.then(
      (res) => {
        obs.end(inc, start, res.status);
        return res;
      },
      (e: unknown) => {
        obs.end(inc, start, 500);
        throw e;
      },
    );
  };
  // the diagnostic listener serves health and metrics only, to probes, without the policy
  const diagnostic = !!created.ctx.opts.diagnostic;
  const gate = diagnostic ? undefined : createGate(created.ctx, created.ctx.opts.access ?? {});
  const cluster = created.ctx.opts.cluster;
  const maxBody = created.ctx.limits.maxLength;
  const wrap = (hono: RequestListener): RequestListener => {
    const serve = (inc: IncomingMessage, res: ServerResponse) => {
      if (cluster?.owns(inc.method ?? 'GET', pathOf(inc.url ?? '/'))) {
        const start = obs.begin(inc);
        return void forwardRequest(cluster, inc, res, maxBody).then((status) => obs.end(inc, start, status, 'forwarded'));
      }
      if (diagnostic || !fast(inc, res)) void hono(inc, res);
    };
    // the authorization gate comes before every route, the fast path included; a request
    // it refuses is logged as any other
    const entry: RequestListener = gate
      ? (inc, res) => {
          const start = obs.begin(inc);
          gate(
            inc,
            res,
            () => serve(inc, res),
            (status) => obs.end(inc, start, status, 'authz'),
          );
        }
      : serve;
    // distributed tracing (src/server/request-spans.ts): a span around each request when installed
    const traced = requestSpans();
    const outer = traced ? traced(entry, handlerOf) : entry;
    if (!cluster) return outer;
    // while the workers switch to a new state together, new requests wait (see src/cli/workers)
    const shed = diagnostic ? undefined : cluster.shed;
    return (inc, res) => {
      // a worker holding more than its share of the connections closes this one after its
      // response: the client reconnects, most likely to a worker with time to spare
      if (shed !== undefined && shed(inc.socket)) res.shouldKeepAlive = false;
      const held = cluster.hold();
      if (held) void held.then(() => outer(inc, res));
      else outer(inc, res);
    };
  };
  const raw = diagnostic || gate || requestSpans() ? undefined : { ctx: created.ctx, obs, cluster };
  return { fetch, wrap, raw };
}
