// The console's API under /ui/api: the playground (ui-eval.ts), the decision log
// (ui-decisions.ts), the dashboard (ui-status.ts), and impact analysis, which is the
// function given in ConsoleOptions.impact (the server only carries the request to it).

import { toJSONText, type Value } from '../../value/index.js';
import type { App, ServerContext } from '../context.js';
import type { ConsoleOptions } from '../console.js';
import type { DurationHistogram } from '../duration-histogram.js';
import { badRequest, Code, HttpError } from '../errors.js';
import { route } from '../handler.js';
import { sendJSON } from '../respond.js';
import { readJSONBody, registerUiEval } from './ui-eval.js';
import { registerUiDecisions } from './ui-decisions.js';
import { registerUiStatus } from './ui-status.js';

export const NO_IMPACT = 'impact analysis is not available: this server was started without a replay engine';

export function registerUiApi(app: App, ctx: ServerContext, c: ConsoleOptions, durations: DurationHistogram): void {
  registerUiEval(app, ctx, c.evaluate);
  registerUiDecisions(app, c);
  registerUiStatus(app, ctx, c, durations);
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
