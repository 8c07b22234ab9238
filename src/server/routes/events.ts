// POST /v1/events/<name>: an incoming event for an event adapter (a CI webhook, ...). The
// body is read within the server's limits (gzip included); the adapter authenticates the
// sender, decides and answers. Unknown names are 404, like any path the server lacks.

import type { App, ServerContext } from '../context.js';
import type { RouteFamily } from '../route-table.js';
import { Code, HttpError } from '../errors.js';
import { route } from '../handler.js';
import { nodeIncoming, readBody } from '../body.js';
import { pathAfter, splitURL } from '../params.js';
import { sendJSON } from '../respond.js';
import { toJSONText, type Value } from '../../value/index.js';

/** An event adapter runs with the plugins, in the primary. */
export const eventsRoutes: RouteFamily = {
  routes: [
    { method: 'POST', path: '/v1/events/*', answeredBy: 'primary' },
  ],
  mount: registerEvents,
};

export function registerEvents(app: App, ctx: ServerContext): void {
  const events = ctx.opts.events;
  if (!events) return;
  app.post(
    '/v1/events/*',
    route('v1/events', async (c) => {
      const name = decodeURIComponent(pathAfter(splitURL(c.req.url).path, '/v1/events').replace(/^\/+|\/+$/g, ''));
      const incoming = nodeIncoming(c.env);
      const headers: Record<string, string | undefined> = {};
      if (incoming) for (const [k, v] of Object.entries(incoming.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      else c.req.raw.headers.forEach((v, k) => (headers[k] = v));
      // the adapter is looked up before the body is read: nobody streams a body at a name that does not exist
      if (!events.has(name)) throw new HttpError(404, Code.resourceNotFound, `no event adapter named "${name}"`);
      const body = await readBody(c.req.raw, ctx.limits, undefined, incoming);
      const reply = await events.handle(name, { body, headers });
      return sendJSON(toJSONText(reply.body as Value) + '\n', { status: reply.status });
    }),
  );
}
