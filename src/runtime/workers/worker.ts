// A worker of `regolith run --server --workers N`: its own engine over a copy of the
// primary's store (follower.ts), serving decisions on the shared address (each worker
// accepts connections itself). It answers reads itself; writes, /v1/status, /metrics and
// events go to the primary; decisions go to the primary's decision log buffer. A listener
// that cannot start is reported to the primary, which ends the whole process with it.

import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { RegolithEngine } from '../../engine/store-engine.js';
import type { CustomBuiltin, RegoVersion } from '../../engine/index.js';
import { Store } from '../../storage/index.js';
import { startServer, type AccessOptions, type RunningServer, type StartOptions, type TLSOptions } from '../../server/index.js';
import type { Config } from '../../plugins/config/index.js';
import { DecisionFeed } from '../../plugins/logs/feed.js';
import { consoleRoutes } from '../../console/index.js';
import { PlaygroundSandbox } from '../../console/playground/sandbox.js';
import { listenFailure } from '../listen-error.js';
import { primaryOwns } from './protocol.js';
import { DecisionBatch } from './decision-batch.js';
import { Follower, send } from './follower.js';
import { ConnectionBalance } from './balance.js';

export interface WorkerOptions {
  config: Config;
  logger: Logger;
  regoVersion: RegoVersion;
  addrs: string[];
  diagnosticAddrs: string[];
  shutdownGraceMs: number;
  tls?: TLSOptions;
  access?: AccessOptions;
  unixSocketPerm?: string;
  /** The web console: its pages, and the CLI entry the playground's child runs from. */
  console?: { assetsDir: string; entry: string };
  /** Custom built-ins (the same modules the primary loaded). */
  builtins?: CustomBuiltin[];
  /**
   * Runs when the servers have closed, before the worker leaves (distributed tracing flushes
   * its spans): once the channel to the primary closes, the cluster module exits the process.
   */
  beforeLeave?: () => Promise<void>;
}

/** The last message, then the channel closed: nothing keeps the process alive after it. */
function leave(m: Parameters<typeof send>[0]): Promise<void> {
  return new Promise((resolve) =>
    send(m, () => {
      if (process.connected) process.disconnect();
      resolve();
    }),
  );
}

export async function runWorker(o: WorkerOptions): Promise<number> {
  const store = new Store({ onTriggerError: (err) => o.logger.error({ err }, 'store trigger failed') });
  const engine = new RegolithEngine({ store, regoVersion: o.regoVersion, builtins: o.builtins });
  const registry = new Registry();
  // the console's live stream; the primary sends events only while someone here listens
  // (recent decisions are answered by the primary: GET /ui/api/decisions is forwarded)
  const feed = new DecisionFeed({ events: 1, onListeners: (n) => send({ t: 'feed', on: n > 0 }) });
  const follower = new Follower(store, registry, feed);
  const balance = new ConnectionBalance((open) => send({ t: 'conns', open }));
  follower.onShare = (share) => balance.setShare(share);
  await follower.joined;

  // with discovery, decision logs may be turned on later: the primary drops what it does not log
  const logDecisions = !!o.config.decision_logs || !!o.config.discovery;
  const decisions = new DecisionBatch((batch) => send({ t: 'decisions', batch }));
  // the console: pages and the playground here; impact and status from the primary (forwarded)
  const sandbox = o.console ? new PlaygroundSandbox({ entry: o.console.entry }) : undefined;
  const console = o.console ? { assetsDir: o.console.assetsDir, decisions: logDecisions ? feed : undefined, evaluate: sandbox!.evaluate } : undefined;
  const common: StartOptions = {
    families: console ? [consoleRoutes(console)] : undefined,
    engine,
    config: o.config.raw,
    logger: o.logger,
    shutdownGraceMs: o.shutdownGraceMs,
    unixSocketPerm: o.unixSocketPerm,
    registry,
    pluginStatus: () => follower.states,
    cluster: {
      owns: primaryOwns,
      hold: () => follower.hold(),
      forward: (req) => follower.forward(req),
      connection: (socket) => balance.connection(socket),
      shed: (socket) => balance.shed(socket),
    },
    // (a partially read input goes as its text from the body: the primary gets it whole)
    ...(logDecisions ? { decisionLogger: (e: Parameters<DecisionBatch['push']>[0]) => decisions.push(e), decisionLoggerReadsBody: true } : {}),
  };
  const servers: RunningServer[] = [];
  const closeAll = async (): Promise<void> => {
    sandbox?.close();
    await Promise.all(servers.map((s) => s.close()));
  };
  const addrs = [...o.addrs, ...o.diagnosticAddrs];
  try {
    for (const addr of o.addrs) servers.push(await startServer({ addr, tls: o.tls, access: o.access, ...common }));
    for (const addr of o.diagnosticAddrs) servers.push(await startServer({ addr, diagnostic: true, ...common }));
  } catch (e) {
    // the primary shows it once and stops every worker; this one says nothing itself
    await closeAll();
    const message = listenFailure(e, addrs[servers.length])?.message ?? (e as Error).message;
    await leave({ t: 'failed', message });
    return 1;
  }
  send({ t: 'serving' });

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      closeAll()
        .then(() => o.beforeLeave?.())
        .then(() => {
          // every decision answered goes before the last message (the channel keeps their order)
          decisions.flush();
          return leave({ t: 'stopped' });
        })
        .then(
          () => resolve(0),
          () => resolve(1),
        );
    };
    process.once('SIGTERM', stop);
    // the terminal's Ctrl-C reaches every process of the group: the primary decides
    process.on('SIGINT', () => {});
    process.once('disconnect', stop);
  });
}
