// The playground's routes: POST /ui/api/eval evaluates a query against the modules, data
// and input of the request (playground/evaluate.ts; in the sandbox child when the server
// has one); POST /ui/api/fmt formats a module.

import type { Context } from 'hono';
import { toJSONText, type Value } from '../../value/index.js';
import type { App, Env, ServerContext } from '../../server/context.js';
import type { RouteDecl } from '../../server/route-table.js';
import { decodeJSON, DecodeError, nodeIncoming, readBody } from '../../server/body.js';
import { badRequest } from '../../server/errors.js';
import { route } from '../../server/handler.js';
import { sendJSON } from '../../server/respond.js';
import type { ConsoleOptions } from '../options.js';
import { evaluatePlayground, formatPlayground } from '../playground/evaluate.js';

/** Any worker evaluates (each has its own sandbox child). */
export const evalRoutes: readonly RouteDecl[] = [
  { method: 'POST', path: '/ui/api/eval', answeredBy: 'worker' },
  { method: 'POST', path: '/ui/api/fmt', answeredBy: 'worker' },
];

/** The request body as a JSON document (the server's limits and exact numbers), undefined when empty. */
export async function readJSONBody(c: Context<Env>, ctx: ServerContext): Promise<Value | undefined> {
  const buf = await readBody(c.req.raw, ctx.limits, undefined, nodeIncoming(c.env));
  try {
    return decodeJSON(buf, ctx.limits);
  } catch (e) {
    if (e instanceof DecodeError) throw badRequest(`error(s) occurred while decoding request: ${e.message}`);
    throw e;
  }
}

export function registerUiEval(app: App, ctx: ServerContext, sandbox?: ConsoleOptions['evaluate']): void {
  app.post(
    '/ui/api/eval',
    route('ui/api/eval', async (c) => {
      const body = await readJSONBody(c, ctx);
      if (!sandbox) return sendJSON(await evaluatePlayground(body));
      const r = await sandbox(toJSONText(body ?? null));
      return sendJSON(r.body, { status: r.status });
    }),
  );
  app.post(
    '/ui/api/fmt',
    route('ui/api/fmt', async (c) => sendJSON(formatPlayground(await readJSONBody(c, ctx)))),
  );
}
