// The server side of bench/logs-pair.ts (issue #28): the decision server started as
// bench/http-server.ts starts its regolith-logs mode (plugin manager, RBAC loaded by the
// parent), in variants that take decision logging apart:
//   nologs          no decision_logs section
//   logs            decision_logs uploading to BENCH_COLLECTOR_URL every 1-2 s (BENCH_LOG_DELAY)
//   logs-manual     decision_logs with trigger: manual: every event written and kept, no upload
//                   (reports 0 logged, so that the parent does not wait for a collector)
//   ids             no decision_logs, but a decision logger that does nothing: the server's own
//                   part of a logged decision (its id, the response's decision_id, the record
//                   handed over) without the plugin's
//   nologs-client   no decision_logs, but the same ServiceClient POSTs one gzipped body of
//                   ~450 events' size to the collector every 1-2 s, as uploads do: the HTTP
//                   client's part alone
// Reports its URL over IPC and answers {cpu: true} with its CPU time and logged decisions.
import pino from 'pino';
import { gzipSync } from 'node:zlib';
import { startServer } from '../src/server/index.js';
import { RegolithEngine } from '../src/engine/store-engine.js';
import { validateConfig } from '../src/plugins/config/index.js';
import { PluginManager } from '../src/plugins/manager.js';
import { ServiceClient } from '../src/plugins/services/client.js';

const mode = process.argv[2];
let logged = (): number => 0;

async function main(): Promise<void> {
  if (!['nologs', 'logs', 'logs-manual', 'ids', 'nologs-client'].includes(mode ?? '')) throw new Error(`usage: logs-server.ts nologs|logs|logs-manual|ids|nologs-client (got ${mode})`);
  const [min, max] = (process.env['BENCH_LOG_DELAY'] ?? '1,2').split(',').map(Number) as [number, number];
  const collector = process.env['BENCH_COLLECTOR_URL'] ?? 'http://127.0.0.1:9';
  const logs = mode === 'logs' || mode === 'logs-manual';
  const config = validateConfig({
    services: { collector: { url: collector } },
    ...(logs ? { decision_logs: { service: 'collector', reporting: { min_delay_seconds: min, max_delay_seconds: max, ...(mode === 'logs-manual' ? { trigger: 'manual' } : {}) } } } : {}),
  });
  const engine = new RegolithEngine();
  const manager = new PluginManager({ config, engine });
  await manager.start();
  if (mode === 'logs') logged = () => manager.decisionLogs?.counts.logged ?? 0;
  let handed = 0;
  const s = await startServer({
    addr: '127.0.0.1:0',
    engine,
    config: config.raw,
    logger: pino({ level: 'warn' }),
    ...manager.serverOptions(),
    ...(mode === 'ids' ? { decisionLogger: () => void handed++ } : {}),
  });
  if (mode === 'nologs-client') {
    const client = new ServiceClient(validateConfig({ services: { collector: { url: collector } } }).services['collector']!);
    // ~455 RBAC events of ~590 bytes, compressible as events are (a gzipped chunk of ~32 KB)
    const body = gzipSync(Buffer.from(JSON.stringify(Array.from({ length: 455 }, (_, i) => ({ decision_id: `${i}-${Math.random()}`, pad: 'x'.repeat(500) })))), { level: 1 });
    const tick = (): void => {
      setTimeout(() => {
        void client.request({ method: 'POST', path: '/logs', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body }).finally(tick);
      }, (min + Math.random() * (max - min)) * 1000).unref();
    };
    tick();
  }
  process.send?.({ url: s.url });
}

process.on('message', (m) => {
  if ((m as { cpu?: boolean }).cpu) process.send?.({ cpu: process.cpuUsage(), logged: logged() });
});
process.on('disconnect', () => process.exit(0));
main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
