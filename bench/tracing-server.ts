// The server side of bench/tracing.ts, in its own process: the decision server (src/server's
// startServer over a RegolithEngine, logging at warn), with distributed tracing as
// `regolith run` starts it (src/runtime/tracing) before the server is created:
//   off   no distributed_tracing section: nothing of OpenTelemetry runs
//   p0    type http to BENCH_RECEIVER (the parent's stand-in), sample_percentage 0
//   p100  the same, sample_percentage 100: every decision's spans exported
// Listens on 127.0.0.1 (a free port), reports its URL over IPC, and its CPU time when asked.

import pino from 'pino';
import { startServer } from '../src/server/index.js';
import { RegolithEngine } from '../src/engine/store-engine.js';
import { distributedTracing } from '../src/plugins/tracing/config.js';
import { startTracing, type Tracing } from '../src/runtime/tracing/index.js';

const mode = process.argv[2];
let tracing: Tracing | undefined;

async function main(): Promise<void> {
  if (mode !== 'off' && mode !== 'p0' && mode !== 'p100') throw new Error(`usage: tracing-server.ts off|p0|p100 (got ${mode})`);
  if (mode !== 'off') {
    const cfg = distributedTracing({ type: 'http', address: process.env['BENCH_RECEIVER'], sample_percentage: mode === 'p0' ? 0 : 100 })!;
    tracing = await startTracing(cfg, (err) => console.error(`tracing: ${err.message}`));
  }
  const s = await startServer({ addr: '127.0.0.1:0', engine: new RegolithEngine(), logger: pino({ level: 'warn' }) });
  process.send?.({ url: s.url });
}

process.on('message', (m) => {
  if ((m as { cpu?: boolean }).cpu) process.send?.({ cpu: process.cpuUsage() });
  // the parent asks for the spans still buffered before it counts what arrived
  if ((m as { flush?: boolean }).flush) void (tracing?.shutdown() ?? Promise.resolve()).then(() => process.send?.({ flushed: true }));
});
process.on('disconnect', () => process.exit(0));
main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
