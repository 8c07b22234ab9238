// The web console under /ui: its options and the route family the runtime hands the
// server (ServerOptions.families; the server never imports the console). The pages and
// scripts are built from ui/ into a directory (assets); the API under /ui/api evaluates in
// a sandbox of its own (playground/), shows the decision log and the server's state, and
// runs impact analysis (impact/). Anything from the plugins comes in through these options.

import type { ServerContext } from '../server/context.js';
import type { RouteDecl, RouteFamily } from '../server/route-table.js';
import { assetRoutes, registerUiAssets } from './routes/assets.js';
import { apiRoutes, registerUiApi } from './routes/api.js';
import type { ConsoleOptions } from './options.js';

export type { ConsoleOptions };

/** Every route of the console, declared beside its handler. */
export const CONSOLE_ROUTES: readonly RouteDecl[] = [...assetRoutes, ...apiRoutes];

/** Whether the configuration switches the console off (`server.ui: false`). */
function switchedOff(ctx: ServerContext): boolean {
  const server = ctx.config['server'];
  return server !== null && typeof server === 'object' && (server as Record<string, unknown>)['ui'] === false;
}

/** The console's routes over these options: /ui and /ui/api/*, none when `server.ui: false` (404 as any unknown path). */
export function consoleRoutes(c: ConsoleOptions): RouteFamily {
  return {
    routes: CONSOLE_ROUTES,
    mount(app, ctx, shared) {
      if (switchedOff(ctx)) return;
      registerUiAssets(app, c);
      registerUiApi(app, ctx, c, shared.durations);
    },
  };
}
