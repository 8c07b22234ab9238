// What the upload tests share: a loopback collector that records every event it accepts (and
// answers 503 to the requests `refuse` picks), and a decision-log plugin that uploads only when
// triggered. Its client keeps the real 10 s header timeout: these tests are about delivery, and a
// timeout shrunk to 200 ms failed them on a loaded machine.

import { validateConfig } from '../../../src/plugins/config/index.js';
import { DecisionLogPlugin } from '../../../src/plugins/logs/plugin.js';
import { ServiceClient } from '../../../src/plugins/services/client.js';
import { fastTiming, gunzipJSON, httpServer, type TestHTTPServer } from '../../loopback.js';

export type Ev = Record<string, any>;
export type Cleanup = (() => Promise<void> | void)[];

export interface Collector extends TestHTTPServer {
  events: Ev[];
  bodies: Buffer[];
}

/** `refuse(n)`: whether to answer the n-th request (1-based) with 503; closed by `cleanup` when given. */
export async function collector(cleanup?: Cleanup, refuse: (request: number) => boolean = () => false): Promise<Collector> {
  const c = Object.assign(await httpServer(() => {}), { events: [] as Ev[], bodies: [] as Buffer[] });
  c.handler = (req, res) => {
    if (refuse(c.requests.length)) {
      res.statusCode = 503;
      return void res.end();
    }
    c.bodies.push(req.body);
    c.events.push(...(gunzipJSON(req.body) as Ev[]));
    res.statusCode = 204;
    res.end();
  };
  cleanup?.push(() => c.close());
  return c;
}

export function triggeredConfig(col: TestHTTPServer, reporting: Record<string, unknown>) {
  return validateConfig({ services: { s: { url: col.url } }, decision_logs: { reporting: { trigger: 'manual', ...reporting } } });
}

/** A started plugin uploading to `col` when triggered; stopped by `cleanup` when given. */
export async function triggeredPlugin(col: TestHTTPServer, reporting: Record<string, unknown>, cleanup?: Cleanup): Promise<DecisionLogPlugin> {
  const config = triggeredConfig(col, reporting);
  const p = new DecisionLogPlugin({ config, client: new ServiceClient(config.services['s']!), labels: { id: 'x', version: 'v' }, timing: fastTiming() });
  await p.start();
  cleanup?.push(() => p.stop());
  return p;
}
