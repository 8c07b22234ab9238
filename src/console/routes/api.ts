// The console's API under /ui/api: the playground (eval.ts), the decision log
// (decisions.ts), the dashboard (status.ts), and impact analysis, which is the
// function given in ConsoleOptions.impact (the server only carries the request to it).

import { toJSONText, type Value } from '../../value/index.js';
import type { App, ServerContext } from '../../server/context.js';
import type { RouteDecl } from '../../server/route-table.js';
import type { ConsoleOptions } from '../options.js';
import type { DurationHistogram } from '../../server/duration-histogram.js';
import { badRequest, Code, HttpError } from '../../server/errors.js';
import { route } from '../../server/handler.js';
import { sendJSON } from '../../server/respond.js';
import { evalRoutes, readJSONBody, registerUiEval } from './eval.js';
import { decisionRoutes, registerUiDecisions } from './decisions.js';
import { registerUiStatus, statusRoutes } from './status.js';
import { registerUiReplay, replayRoutes } from './replay.js';
import { registerUiSession, sessionRoutes } from './session.js';

export const NO_IMPACT = 'impact analysis is not available: this server was started without a replay engine';

/** Impact analysis replays against the primary's store and decision log. */
export const apiRoutes: readonly RouteDecl[] = [...evalRoutes, ...decisionRoutes, ...statusRoutes, ...replayRoutes, ...sessionRoutes, { method: 'POST', path: '/ui/api/impact', answeredBy: 'primary' }];

export function registerUiApi(app: App, ctx: ServerContext, c: ConsoleOptions, durations: DurationHistogram): void {
  registerUiEval(app, ctx, c.evaluate);
  registerUiDecisions(app, c);
  registerUiStatus(app, ctx, c, durations);
  registerUiReplay(app, ctx, c);
  registerUiSession(app, ctx);
  app.post(
    '/ui/api/impact',
    route('ui/api/impact', async (hc) => {
      const impact = c.impact;
      if (!impact) throw new HttpError(501, Code.invalidOperation, NO_IMPACT);
      const body = await readJSONBody(hc, ctx);
      if (body === undefined) throw badRequest('request body must be a JSON document');
      const reply = await impact(body);
      return sendJSON(toJSONText(reply.body as Value), { status: reply.status });
    }),
  );
}
