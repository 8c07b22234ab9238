// The console's view of the decision log: GET /ui/api/decisions (the last events, oldest
// first), GET /ui/api/decisions/stream (server-sent events as decisions are logged) and
// GET /ui/api/decisions/counters (uploaded, dropped and buffered events, the last upload error).
// Events are exactly what the decision log writes: masked, and never those dropped.

import type { App } from '../../server/context.js';
import type { RouteDecl } from '../../server/route-table.js';
import type { ConsoleOptions } from '../options.js';
import { nodeIncoming } from '../../server/body.js';
import { badRequest } from '../../server/errors.js';
import { route } from '../../server/handler.js';
import { splitURL } from '../../server/params.js';
import { sendJSON } from '../../server/respond.js';

export const DISABLED_HINT = 'Decision logging is off. Enable it in the configuration: decision_logs: {console: true} (or a service) — see README';

export const DECISIONS_DEFAULT = 100;
export const DECISIONS_MAX = 1000;
/** Milliseconds between keep-alive comments on the stream. */
export const PING_MS = 15_000;
/** Bytes a stream may hold for a client that does not read; past this the stream is closed (EventSource reconnects). */
export const STREAM_BACKLOG_BYTES = 8 * 1024 * 1024;

function limitParam(q: URLSearchParams): number {
  const all = q.getAll('limit');
  if (all.length === 0) return DECISIONS_DEFAULT;
  const raw = all[all.length - 1]!;
  if (!/^\d+$/.test(raw)) throw badRequest(`invalid parameter "limit": must be a whole number from 0 to ${DECISIONS_MAX}`);
  return Math.min(Number(raw), DECISIONS_MAX);
}

const encoder = new TextEncoder();

/** A server-sent event stream over `decisions`; the subscription ends when the client goes away. */
function stream(decisions: NonNullable<ConsoleOptions['decisions']>, env: unknown, pingMs: number): Response {
  let closed = false;
  let unsubscribe: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    closed = true;
    unsubscribe?.();
    unsubscribe = undefined;
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  const strategy = new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 });
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const send = (text: string) => {
          if (closed) return;
          try {
            controller.enqueue(encoder.encode(text));
            // a client that does not read must not make the server hold every event for it
            if ((controller.desiredSize ?? 0) < -STREAM_BACKLOG_BYTES) {
              stop();
              controller.close();
            }
          } catch {
            stop(); // closed under us
          }
        };
        // a first comment flushes the headers at once
        send(': connected\n\n');
        if (closed) return;
        unsubscribe = decisions.subscribe((json) => send(`event: decision\ndata: ${json}\n\n`));
        timer = setInterval(() => send(': ping\n\n'), pingMs);
        timer.unref();
      },
      cancel: stop,
    },
    strategy,
  );
  // the Node response closing (client gone) ends the subscription too, whatever the stream saw
  const outgoing = (env as { outgoing?: { once(ev: 'close', fn: () => void): void } } | undefined)?.outgoing;
  outgoing?.once('close', stop);
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    },
  });
}

/** The recent events come from the primary's decision log; each worker streams what the primary sends it. */
export const decisionRoutes: readonly RouteDecl[] = [
  { method: 'GET', path: '/ui/api/decisions', answeredBy: 'primary' },
  { method: 'GET', path: '/ui/api/decisions/stream', answeredBy: 'worker' },
  { method: 'GET', path: '/ui/api/decisions/counters', answeredBy: 'primary' },
];

/** The decision log's counters in the console's words, from the plugin's upload status (OPA's metric names). */
export function counters(c: ConsoleOptions): Record<string, unknown> {
  if (!c.decisions) return { enabled: false, hint: DISABLED_HINT };
  const s = c.decisions.uploadStatus?.();
  if (!s) return { enabled: true, available: false };
  const m = s.metrics ?? {};
  const n = (k: string) => m[k] ?? 0;
  const out: Record<string, unknown> = {
    enabled: true,
    available: true,
    uploaded: n('counter_decision_logs_uploaded'),
    buffered: n('gauge_decision_logs_buffered_events'),
    dropped: {
      buffer_size_limit: n('counter_decision_logs_dropped_buffer_size_limit_bytes_exceeded'),
      rate_limit: n('counter_decision_logs_dropped_rate_limit_exceeded'),
      event_too_large: n('counter_decision_logs_dropped_event_too_large'),
    },
  };
  if (s.code || s.message) out['error'] = { code: s.code ?? '', message: s.message ?? '' };
  return out;
}

export function registerUiDecisions(app: App, c: ConsoleOptions, pingMs = PING_MS): void {
  app.get(
    '/ui/api/decisions',
    route('ui/api/decisions', (ctx) => {
      const limit = limitParam(splitURL(ctx.req.url).query);
      if (!c.decisions) return sendJSON(JSON.stringify({ enabled: false, hint: DISABLED_HINT }));
      // the events are JSON text already: written as they are, never parsed again
      return sendJSON(`{"enabled":true,"events":[${c.decisions.recent(limit).join(',')}]}`);
    }),
  );
  app.get('/ui/api/decisions/counters', route('ui/api/decisions/counters', () => sendJSON(JSON.stringify(counters(c)))));
  app.get(
    '/ui/api/decisions/stream',
    route('ui/api/decisions/stream', (ctx) => {
      if (!c.decisions) {
        return new Response(`event: disabled\ndata: ${JSON.stringify({ hint: DISABLED_HINT })}\n\n`, {
          status: 200,
          headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform' },
        });
      }
      // keep the socket from idling out while the stream is open
      nodeIncoming(ctx.env)?.socket?.setTimeout(0);
      return stream(c.decisions, ctx.env, pingMs);
    }),
  );
}
