// The primary of `regolith run --server --workers N`: it holds the one store (policies and
// data from the paths, bundles, adapters, the Data and Policy APIs) and runs the plugins;
// it serves no HTTP itself. Workers copy its state (replicator.ts) and forward it what they
// do not answer themselves (owner.ts); a write is answered only once every worker has it.
// A worker that fails to start ends the whole process with its error; one that dies after
// serving is replaced after a backoff, within bounds (restarts.ts); the others serve
// meanwhile. On a signal: the wait period, then the workers drain and exit, then the
// plugins flush (decision logs) and stop.

import cluster from 'node:cluster';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ConsoleOptions } from '../../console/index.js';
import type { RegolithEngine } from '../../engine/store-engine.js';
import type { Store } from '../../storage/index.js';
import type { Config } from '../../plugins/config/index.js';
import type { RunningPlugins } from '../plugins.js';
import { ExitError } from '../errors.js';
import { shutdownWait, type ShutdownPeriods, type ShutdownSignal } from '../shutdown.js';
import type { ToPrimary } from './protocol.js';
import { readEvents } from './decision-wire.js';
import { FeedRelay } from './feed-relay.js';
import { Member } from './member.js';
import { Replicator } from './replicator.js';
import { ownerAnswers, statesPusher } from './owner.js';
import { RestartPolicy } from './restarts.js';
import { connectionShare } from './balance.js';

export interface PrimaryRuntime {
  config: Config;
  logger: Logger;
  store: Store;
  engine: RegolithEngine;
  plugins: RunningPlugins;
  registry: Registry;
  /** The web console's impact analysis and status answer here (the workers forward them). */
  console?: ConsoleOptions;
}

/** How long past the grace period a worker may take to exit before it is killed. */
const EXIT_SLACK_MS = 2_000;

/** Starts `n` workers and supervises them until a signal; resolves with the exit code, rejects with the error that ended them. */
export async function runPrimary(rt: PrimaryRuntime, n: number, periods: ShutdownPeriods, signals: ShutdownSignal): Promise<number> {
  const { logger, store } = rt;
  // workers accept connections themselves (SCHED_NONE): with the default round-robin the
  // primary accepts and hands each connection over, and one handed to a worker that dies
  // before taking it stays open in the primary — a client that hangs instead of failing
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({ serialization: 'advanced' });
  const members = new Map<number, Member>();
  const all = (): Member[] => [...members.values()];
  const replicator = new Replicator(store, all, logger);
  const answer = ownerAnswers(rt, all, replicator);
  const pushStates = statesPusher(rt, all);
  const statesTimer = setInterval(() => pushStates(), 200);
  // logged (masked) decisions to the workers whose console streams them, and only those:
  // nothing crosses per decision while nobody watches
  const feed = new FeedRelay(rt.plugins.decisionFeed, () => members.values());
  const restarts = new RestartPolicy();
  // each serving worker's share of the connections, sent when it changes (balance.ts)
  const rebalance = (): void => {
    const serving = all().filter((m) => m.serving && m.alive);
    const share = connectionShare(serving.map((m) => m.conns));
    for (const m of serving) {
      if (m.share === share) continue;
      m.share = share;
      m.send({ t: 'share', share });
    }
  };

  let stopping = false;
  let fatal: ExitError | undefined;
  let stop!: (reason: string) => void;

  const onMessage = (m: Member, msg: ToPrimary): void => {
    switch (msg.t) {
      case 'hello':
        m.greeted();
        break;
      case 'ready':
        pushStates(m);
        m.replied('ready', msg.seq);
        break;
      case 'serving':
        m.serving = true;
        rebalance();
        break;
      case 'conns':
        m.conns = msg.open;
        rebalance();
        break;
      case 'failed':
        // one message for the whole process, not one per worker
        fatal ??= new ExitError(msg.message);
        stop('a worker could not start');
        break;
      case 'frozen':
        m.replied('frozen', msg.seq);
        break;
      case 'applied':
        if (msg.error) logger.error({ worker: m.worker.id, err: msg.error }, 'A worker could not apply a change; it is replaced.');
        m.replied('applied', msg.seq);
        if (msg.error) m.worker.kill('SIGKILL');
        break;
      case 'forward':
        answer(msg.req).then(
          (res) => m.send({ t: 'answer', id: msg.id, res }),
          (e: Error) => m.send({ t: 'answer', id: msg.id, error: e.message }),
        );
        break;
      case 'feed':
        m.wantsFeed = msg.on;
        feed.update();
        break;
      case 'decisions':
        readEvents(msg.batch, rt.plugins.logWritten);
        break;
      case 'metrics':
        m.metricsReplied(msg.id, msg.json);
        break;
    }
  };

  const onExit = (m: Member, code: number | null, signal: string | null): void => {
    members.delete(m.worker.id);
    feed.update();
    if (stopping) return;
    rebalance();
    const how = signal ?? `exit code ${code}`;
    if (!m.serving) {
      fatal ??= new ExitError(`a worker process exited with ${how} before serving`);
      return stop('a worker could not start');
    }
    const verdict = restarts.exited(how);
    if ('giveUp' in verdict) {
      fatal ??= new ExitError(verdict.giveUp);
      return stop('workers keep exiting');
    }
    logger.warn({ worker: m.worker.id, pid: m.worker.process.pid, code, signal, restart_in_ms: verdict.restartInMs }, 'A worker exited; starting another.');
    setTimeout(() => stopping || replicator.join(fork()), verdict.restartInMs);
  };

  const fork = (): Member => {
    const m = new Member(cluster.fork({ REGOLITH_WORKER: '1' }));
    members.set(m.worker.id, m);
    m.worker.on('message', (msg: ToPrimary) => onMessage(m, msg));
    m.worker.once('exit', (code, signal) => onExit(m, code, signal));
    return m;
  };

  return new Promise<number>((resolve, reject) => {
    stop = (reason) => {
      if (stopping) return;
      stopping = true;
      logger.info({ reason }, 'Stopping the workers.');
      clearInterval(statesTimer);
      feed.stop();
      const exits = all().map((m) => m.exited());
      // each worker stops accepting, finishes its requests in flight (forwarded ones
      // answered here meanwhile) and hands over its last decisions before it exits
      for (const m of all()) m.worker.process.kill('SIGTERM');
      const deadline = setTimeout(() => {
        for (const m of all()) m.worker.process.kill('SIGKILL');
      }, periods.graceMs + EXIT_SLACK_MS);
      Promise.all(exits)
        .then(() => clearTimeout(deadline))
        .then(() => rt.plugins.stop(periods.graceMs))
        .then(
          () => (fatal ? reject(fatal) : resolve(0)),
          (e: unknown) => {
            logger.error({ err: e }, 'Shutdown failed.');
            resolve(1);
          },
        );
    };
    signals.onSignal((signal) => {
      logger.info({ signal }, 'Received shutdown signal.');
      void shutdownWait(periods, logger).then(() => stop(signal));
    });
    for (let i = 0; i < n; i++) replicator.join(fork());
    logger.info({ workers: n }, 'Started worker processes.');
  });
}
