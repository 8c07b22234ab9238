// A worker of `regolith run --server --workers N`: its own engine over a copy of the
// primary's store, serving decisions on the shared address (Node cluster hands it
// connections). It answers reads itself; writes, /v1/status, /metrics and events go to the
// primary; decisions go to the primary's decision log buffer. While the workers switch to a
// new state together, new requests wait for the switch.

import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { RegolithEngine } from '../../engine/store-engine.js';
import type { CustomBuiltin, RegoVersion } from '../../engine/index.js';
import { Store } from '../../storage/index.js';
import { startServer, type AccessOptions, type PluginStatus, type RunningServer, type TLSOptions } from '../../server/index.js';
import type { ClusterHooks, ForwardedResponse } from '../../server/cluster.js';
import type { Config } from '../../plugins/config/index.js';
import { encodeEvent, primaryOwns, type ToPrimary, type ToWorker } from './protocol.js';
import { applyDelta, applyFullState } from './replication.js';
import { DecisionFeed } from '../../plugins/logs/feed.js';
import { consoleRoutes } from '../../console/index.js';
import { PlaygroundSandbox } from '../../console/playground/sandbox.js';

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
}

const send = (m: ToPrimary): void => {
  process.send?.(m);
};

export async function runWorker(o: WorkerOptions): Promise<number> {
  const store = new Store({ onTriggerError: (err) => o.logger.error({ err }, 'store trigger failed') });
  const engine = new RegolithEngine({ store, regoVersion: o.regoVersion, builtins: o.builtins });
  const registry = new Registry();
  let states: Record<string, PluginStatus | undefined> = {};
  let held: { promise: Promise<void>; release: () => void } | undefined;
  const answers = new Map<number, (r: { res?: ForwardedResponse; error?: string }) => void>();
  let nextId = 1;
  let joined!: () => void;
  const joinedP = new Promise<void>((r) => (joined = r));
  // changes apply one at a time, in the order they came
  let applying = Promise.resolve();
  // the console's live stream; the primary sends events only while someone here listens
  // (recent decisions are answered by the primary: GET /ui/api/decisions is forwarded)
  const feed = new DecisionFeed({ events: 1, onListeners: (n) => send({ t: 'feed', on: n > 0 }) });

  process.on('message', (m: ToWorker) => {
    switch (m.t) {
      case 'state':
        applying = applying.then(async () => {
          await applyFullState(store, m.state);
          send({ t: 'ready', seq: m.seq });
          joined();
        });
        break;
      case 'freeze': {
        let release!: () => void;
        const promise = new Promise<void>((r) => (release = r));
        held ??= { promise, release };
        send({ t: 'frozen', seq: m.seq });
        break;
      }
      case 'apply':
        applying = applying.then(async () => {
          let error: string | undefined;
          try {
            await applyDelta(store, m.delta);
          } catch (e) {
            error = (e as Error).message;
          }
          const h = held;
          held = undefined;
          h?.release();
          send({ t: 'applied', seq: m.seq, error });
        });
        break;
      case 'plugins':
        states = m.states;
        break;
      case 'answer':
        answers.get(m.id)?.(m);
        answers.delete(m.id);
        break;
      case 'decision-event':
        feed.push(m.json);
        break;
      case 'metrics-req':
        void registry.getMetricsAsJSON().then((json) => send({ t: 'metrics', id: m.id, json }));
        break;
    }
  });

  send({ t: 'hello' });

  const cluster: ClusterHooks = {
    owns: primaryOwns,
    hold: () => held?.promise,
    forward: (req) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        answers.set(id, (r) => (r.res ? resolve(r.res) : reject(new Error(r.error ?? 'no answer'))));
        send({ t: 'forward', id, req });
      }),
  };
  await joinedP;

  // with discovery, decision logs may be turned on later: the primary drops what it does not log
  const logDecisions = !!o.config.decision_logs || !!o.config.discovery;
  // the console: pages and the playground here; impact and status from the primary (forwarded)
  const sandbox = o.console ? new PlaygroundSandbox({ entry: o.console.entry }) : undefined;
  const console = o.console ? { assetsDir: o.console.assetsDir, decisions: logDecisions ? feed : undefined, evaluate: sandbox!.evaluate } : undefined;
  const common = {
    families: console ? [consoleRoutes(console)] : undefined,
    engine,
    config: o.config.raw,
    logger: o.logger,
    shutdownGraceMs: o.shutdownGraceMs,
    unixSocketPerm: o.unixSocketPerm,
    registry,
    pluginStatus: () => states,
    cluster,
    ...(logDecisions ? { decisionLogger: (e: Parameters<typeof encodeEvent>[0]) => send({ t: 'decision', event: encodeEvent(e) }) } : {}),
  };
  const servers: RunningServer[] = [];
  for (const addr of o.addrs) servers.push(await startServer({ addr, tls: o.tls, access: o.access, ...common }));
  for (const addr of o.diagnosticAddrs) servers.push(await startServer({ addr, diagnostic: true, ...common }));

  return new Promise<number>((resolve) => {
    const stop = (): void => {
      sandbox?.close();
      Promise.all(servers.map((s) => s.close())).then(
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
