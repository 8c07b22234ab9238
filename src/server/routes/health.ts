// Health API: GET /health (with bundles, plugins, exclude-plugin) and
// GET /health/<rule> (data.system.health.<rule> must be true), with the seed's messages.

import type { PlainObject, Value } from '../../value/index.js';
import type { App, ServerContext } from '../context.js';
import type { RouteFamily } from '../route-table.js';
import { route } from '../handler.js';
import { boolParam, dataPathToRef, pathAfter, refText, splitURL, stringSliceParam } from '../params.js';

function healthy(): Response {
  return new Response('{}\n', { status: 200, headers: { 'content-type': 'application/json' } });
}

function unhealthy(error: string): Response {
  return new Response(JSON.stringify({ error }) + '\n', { status: 500, headers: { 'content-type': 'application/json' } });
}

export const healthRoutes: RouteFamily = {
  routes: [
    { method: 'GET', path: '/health', answeredBy: 'worker' },
    { method: 'GET', path: '/health/*', answeredBy: 'worker' },
  ],
  mount: registerHealth,
};

export function registerHealth(app: App, ctx: ServerContext): void {
  const statuses = () => ctx.opts.pluginStatus?.() ?? {};
  // Once every plugin has been OK, plugins_ready stays true until the process ends.
  let allPluginsOkOnce = false;

  const canEvaluate = async (): Promise<boolean> => {
    try {
      const r = await ctx.engine.query('x = 1', { snapshot: ctx.engine.store.snapshot() });
      return r.result.length === 1 && r.result[0]!['x'] === 1;
    } catch {
      return false;
    }
  };

  app.get(
    '/health',
    route('health', async (c) => {
      const q = splitURL(c.req.url).query;
      if (!(await canEvaluate())) return unhealthy('unable to perform evaluation');
      const st = statuses();
      if (boolParam(q, 'bundles') || boolParam(q, 'bundle')) {
        // data adapters (plugins named adapter/<name>) activate their documents as bundles do
        for (const [name, s] of Object.entries(st)) {
          if (name !== 'discovery' && name !== 'bundle' && !name.startsWith('adapter/')) continue;
          if (s && s.state !== 'OK') return unhealthy('not all configured bundles have been activated');
        }
      }
      if (boolParam(q, 'plugins')) {
        const exclude = new Set(stringSliceParam(q, 'exclude-plugin'));
        for (const [name, s] of Object.entries(st)) {
          if (exclude.has(name)) continue;
          if (s && s.state !== 'OK') return unhealthy('not all plugins in OK state');
        }
      }
      return healthy();
    }),
  );

  app.get(
    '/health/*',
    route('health', async (c) => {
      const rest = pathAfter(splitURL(c.req.url).path, '/health');
      const ref: Value[] = ['system', 'health', ...dataPathToRef(rest)];
      const pluginState: PlainObject = {};
      let allOk = true;
      for (const [name, s] of Object.entries(statuses())) {
        if (!s) continue;
        pluginState[name] = s.state;
        if (s.state !== 'OK') allOk = false;
      }
      if (allOk) allPluginsOkOnce = true;
      const input: PlainObject = { plugin_state: pluginState, plugins_ready: allPluginsOkOnce };
      const where = refText(ref);
      let res;
      try {
        res = await ctx.engine.evaluate(ref, { input, snapshot: ctx.engine.store.snapshot() });
      } catch (e) {
        return unhealthy(e instanceof Error ? e.message : String(e));
      }
      if (res.result === undefined) return unhealthy(`health policy was undefined at ${where}`);
      if (res.result !== true) return unhealthy(`health policy was not true at ${where}`);
      return healthy();
    }),
  );
}
