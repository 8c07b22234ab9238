// GET /v1/config (the active configuration, secrets removed) and GET /v1/status (the
// status plugin's latest report; 500 when the plugin is not enabled).

import type { PlainObject, Value } from '../../value/index.js';
import type { App, ServerContext } from '../context.js';
import type { RouteFamily } from '../route-table.js';
import { Code, HttpError } from '../errors.js';
import { route } from '../handler.js';
import { boolParam, splitURL } from '../params.js';
import { envelope, sendJSON } from '../respond.js';
import { redactConfig } from '../redact.js';

/**
 * The status report describes the whole group: the primary runs the status plugin. The
 * configuration too: with discovery, the primary holds the one it applied.
 */
export const configStatusRoutes: RouteFamily = {
  routes: [
    { method: 'GET', path: '/v1/config', answeredBy: 'primary' },
    { method: 'GET', path: '/v1/status', answeredBy: 'primary' },
  ],
  mount: registerConfigStatus,
};

export function registerConfigStatus(app: App, ctx: ServerContext): void {
  app.get(
    '/v1/config',
    route('v1/config', (c) => {
      const result = redactConfig(ctx.config, ctx.version.version);
      return sendJSON(envelope([['result', result as PlainObject]], boolParam(splitURL(c.req.url).query, 'pretty')));
    }),
  );
  app.get(
    '/v1/status',
    route('v1/status', (c) => {
      const st: Value | undefined = ctx.opts.status?.();
      if (st === undefined) throw new HttpError(500, Code.internal, 'status plugin not enabled');
      return sendJSON(envelope([['result', st]], boolParam(splitURL(c.req.url).query, 'pretty')));
    }),
  );
}
