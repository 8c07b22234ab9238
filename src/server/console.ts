// The web console under /ui: its options (ServerOptions.console) and its registration. The
// pages and scripts are built by the frontend into a directory (assets); the API under
// /ui/api evaluates in a sandbox of its own, shows the decision log and the server's state,
// and hands impact analysis to the function the caller gives. Anything from the plugins
// comes in through these options, never by import (see DESIGN-NOTES.md, the folder map).

import type { App, ServerContext } from './context.js';
import type { DurationHistogram } from './duration-histogram.js';
import { registerUiAssets } from './routes/ui-assets.js';
import { registerUiApi } from './routes/ui-api.js';

export interface ConsoleOptions {
  /** Directory with index.html and assets/ (built into dist/ui by the frontend build). */
  assetsDir: string;
  /** Decision-log events as they are logged (masked/dropped exactly as the logs), or undefined when decision logging is off. */
  decisions?: { recent(limit: number): string[]; subscribe(fn: (eventJson: string) => void): () => void };
  /** Impact analysis (replay); answers the HTTP status and JSON body to send. */
  impact?: (request: unknown) => Promise<{ status: number; body: unknown }>;
  /**
   * Playground evaluation away from the server process (a child with a memory limit, killed
   * on timeout): a policy that exhausts memory must not take the server down. Takes the
   * request's JSON text, answers the status and JSON text. In-process when absent (tests).
   */
  evaluate?: (requestJSON: string) => Promise<{ status: number; body: string }>;
}

/** Whether the console is served: given in the options and not switched off by `server.ui: false`. */
export function consoleEnabled(ctx: ServerContext): ConsoleOptions | undefined {
  const c = ctx.opts.console;
  if (!c) return undefined;
  const server = ctx.config['server'];
  if (server !== null && typeof server === 'object' && (server as Record<string, unknown>)['ui'] === false) return undefined;
  return c;
}

/** Registers /ui and /ui/api/* when the console is enabled; nothing otherwise (404 as any unknown path). */
export function registerConsole(app: App, ctx: ServerContext, durations: DurationHistogram): void {
  const c = consoleEnabled(ctx);
  if (!c) return;
  registerUiAssets(app, c);
  registerUiApi(app, ctx, c, durations);
}
