// GET /ui/api/session: whether this caller may use the console's API, and how the server
// authenticates. The authorization gate answers before it does: a locked server refuses an
// anonymous caller or a wrong token here with its 401, which is how the page knows to ask
// for a token (and to say a token was refused) before any other request.

import type { App, ServerContext } from '../../server/context.js';
import type { RouteDecl } from '../../server/route-table.js';
import { route } from '../../server/handler.js';
import { sendJSON } from '../../server/respond.js';

export const sessionRoutes: readonly RouteDecl[] = [{ method: 'GET', path: '/ui/api/session', answeredBy: 'worker' }];

export function registerUiSession(app: App, ctx: ServerContext): void {
  const authentication = ctx.opts.access?.authentication ?? 'off';
  app.get('/ui/api/session', route('ui/api/session', () => sendJSON(JSON.stringify({ authentication }))));
}
