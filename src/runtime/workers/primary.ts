// The primary of `regolith run --server --workers N`: it holds the one store (policies and
// data from the paths, bundles, adapters, the Data and Policy APIs) and runs the plugins;
// it serves no HTTP itself. Workers copy its state: a new one gets the whole state, then
// every commit as a delta in the same order. A delta is switched to by all workers together:
// each first holds new requests (freeze), then applies and releases — so no worker answers
// from an older state once another answers from the newer. Writes, /v1/status, /metrics and
// events are forwarded here and answered by one app over the store; a write is answered only
// once every worker has it. A worker that dies is replaced; the others serve meanwhile.

import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { createApp } from '../../server/index.js';
import type { ForwardedRequest, ForwardedResponse } from '../../server/cluster.js';
import { consoleRoutes, type ConsoleOptions } from '../../console/index.js';
import type { RegolithEngine } from '../../engine/store-engine.js';
import type { Store } from '../../storage/index.js';
import type { Config } from '../../plugins/config/index.js';
import type { RunningPlugins } from '../plugins.js';
import { decodeEvent, type ToPrimary, type ToWorker } from './protocol.js';
import { deltaOf, fullStateOf, type Delta } from './replication.js';

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

/** How long a worker may take to take a state or a change (compiling a large policy set included). */
const REPLY_MS = 60_000;

/** One worker as the primary sees it: replies awaited by kind and sequence number. */
class Member {
  joined = false;
  /** Its console streams decisions: logged events go to it. */
  wantsFeed = false;
  /** Resolves when the worker listens for messages (sent earlier, they would be lost). */
  readonly hello: Promise<void>;
  greeted!: () => void;
  private readonly waiting = new Map<string, () => void>();
  private readonly metricReplies = new Map<number, (json: unknown) => void>();

  constructor(readonly worker: Worker) {
    this.hello = new Promise((r) => (this.greeted = r));
    worker.once('exit', () => {
      this.greeted();
      for (const done of this.waiting.values()) done();
      this.waiting.clear();
      for (const done of this.metricReplies.values()) done([]);
    });
  }

  get alive(): boolean {
    return !this.worker.isDead() && this.worker.isConnected();
  }

  send(m: ToWorker): void {
    if (this.alive) this.worker.send(m);
  }

  /**
   * Sends and waits for the reply of `kind` with the same seq; a worker that dies counts as
   * done, and one that does not answer within REPLY_MS is killed (and replaced): a wedged
   * worker must not hold every other one, and every write, forever.
   */
  request(m: ToWorker & { seq: number }, kind: string): Promise<void> {
    if (!this.alive) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.worker.process.kill('SIGKILL');
        done();
      }, REPLY_MS);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.waiting.set(`${kind}:${m.seq}`, done);
      this.send(m);
    });
  }

  replied(kind: string, seq: number): void {
    const done = this.waiting.get(`${kind}:${seq}`);
    this.waiting.delete(`${kind}:${seq}`);
    done?.();
  }

  metrics(id: number): Promise<unknown> {
    if (!this.alive) return Promise.resolve([]);
    return new Promise((resolve) => {
      this.metricReplies.set(id, resolve);
      this.send({ t: 'metrics-req', id });
    });
  }

  metricsReplied(id: number, json: unknown): void {
    this.metricReplies.get(id)?.(json);
    this.metricReplies.delete(id);
  }
}

/** Commits of the primary's store, replayed on every joined worker in order. */
class Replicator {
  private readonly queue: (Delta | Member)[] = [];
  private running = false;
  private seq = 0;
  private applied: number;
  private waiters: { revision: number; resolve: () => void }[] = [];

  constructor(
    private readonly store: Store,
    private readonly members: () => Member[],
    private readonly log: Logger,
  ) {
    this.applied = store.snapshot().revision;
    store.onCommit((event, snap) => {
      this.queue.push(deltaOf(event, snap));
      void this.pump();
    });
  }

  join(m: Member): void {
    this.queue.push(m);
    void this.pump();
  }

  /** Resolves once every joined worker has the store at `revision`. */
  caughtUp(revision: number): Promise<void> {
    if (this.applied >= revision) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ revision, resolve }));
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length) {
        const item = this.queue.shift()!;
        if (item instanceof Member) {
          await item.hello;
          const seq = ++this.seq;
          await item.request({ t: 'state', seq, state: fullStateOf(this.store.snapshot()) }, 'ready');
          item.joined = item.alive;
          continue;
        }
        await this.replicate(item);
      }
    } catch (e) {
      this.log.error({ err: (e as Error).message }, 'Replication to the workers failed.');
    } finally {
      this.running = false;
    }
  }

  private async replicate(delta: Delta): Promise<void> {
    const seq = ++this.seq;
    const members = this.members().filter((m) => m.joined && m.alive);
    // every worker holds new requests before any switches: none answers from the old
    // state after another answered from the new one
    await Promise.all(members.map((m) => m.request({ t: 'freeze', seq }, 'frozen')));
    await Promise.all(members.map((m) => m.request({ t: 'apply', seq, delta }, 'applied')));
    this.applied = delta.revision;
    const ready = this.waiters.filter((w) => w.revision <= this.applied);
    this.waiters = this.waiters.filter((w) => w.revision > this.applied);
    for (const w of ready) w.resolve();
  }
}

const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);

/** Starts `n` workers and supervises them until a signal; resolves with the exit code. */
export async function runPrimary(rt: PrimaryRuntime, n: number, shutdownGraceMs: number): Promise<number> {
  const { logger, store } = rt;
  // workers accept connections themselves (SCHED_NONE): with the default round-robin the
  // primary accepts and hands each connection over, and one handed to a worker that dies
  // before taking it stays open in the primary — a client that hangs instead of failing
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({ serialization: 'advanced' });
  const members = new Map<number, Member>();
  const replicator = new Replicator(store, () => [...members.values()], logger);
  // the owner's app: the routes of every worker, over the one store (the workers checked access)
  const owner = createApp({ engine: rt.engine, config: rt.config.raw, logger, processMetrics: true, ...rt.plugins.serverOptions, registry: rt.registry, families: rt.console ? [consoleRoutes(rt.console)] : undefined });
  // logged (masked) decisions to the workers whose console streams them, and only those:
  // nothing crosses per decision while nobody watches
  const unfeed = rt.plugins.decisionFeed?.subscribe((json) => {
    for (const m of members.values()) if (m.wantsFeed) m.send({ t: 'decision-event', json });
  });
  let metricIds = 0;

  const answer = async (req: ForwardedRequest): Promise<ForwardedResponse> => {
    const path = req.url.split('?')[0]!;
    if (path === '/metrics') {
      const id = ++metricIds;
      const parts = await Promise.all([...members.values()].filter((m) => m.joined).map((m) => m.metrics(id)));
      const all = AggregatorRegistry.aggregate([...(parts as Parameters<typeof AggregatorRegistry.aggregate>[0]), await rt.registry.getMetricsAsJSON()]);
      return { status: 200, headers: { 'content-type': all.contentType }, body: Buffer.from(await all.metrics()) };
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const res = await owner.app.fetch(new Request(`http://primary${req.url}`, { method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body }), {});
    const body = Buffer.from(await res.arrayBuffer());
    // a write is answered once every worker has it
    if (req.method !== 'GET' && req.method !== 'POST') await replicator.caughtUp(store.snapshot().revision);
    return { status: res.status, headers: Object.fromEntries(res.headers), body };
  };

  let lastStates = '';
  const pushStates = (to?: Member): void => {
    const states = rt.plugins.serverOptions.pluginStatus?.() ?? {};
    const text = JSON.stringify(states);
    if (!to) {
      if (text === lastStates) return;
      lastStates = text;
    }
    for (const m of to ? [to] : members.values()) m.send({ t: 'plugins', states });
  };
  const statesTimer = setInterval(() => pushStates(), 200);

  let stopping = false;
  let failedAtStart: string | undefined;
  const fork = (): Member => {
    const m = new Member(cluster.fork({ REGOLITH_WORKER: '1' }));
    members.set(m.worker.id, m);
    m.worker.on('message', (msg: ToPrimary) => {
      switch (msg.t) {
        case 'hello':
          m.greeted();
          break;
        case 'ready':
          pushStates(m);
          m.replied('ready', msg.seq);
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
          break;
        case 'decision':
          void rt.plugins.serverOptions.decisionLogger?.(decodeEvent(msg.event));
          break;
        case 'metrics':
          m.metricsReplied(msg.id, msg.json);
          break;
      }
    });
    m.worker.once('exit', (code, signal) => {
      members.delete(m.worker.id);
      if (stopping) return;
      if (!m.joined && code !== 0) {
        failedAtStart ??= `a worker exited with ${signal ?? code} before serving`;
        return;
      }
      logger.warn({ worker: m.worker.id, pid: m.worker.process.pid, code, signal }, 'A worker exited; starting another.');
      replicator.join(fork());
    });
    return m;
  };
  for (let i = 0; i < n; i++) replicator.join(fork());
  logger.info({ workers: n }, 'Started worker processes.');

  return new Promise<number>((resolve) => {
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'Received shutdown signal; stopping the workers.');
      clearInterval(statesTimer);
      unfeed?.();
      const exits = [...members.values()].map((m) => new Promise((r) => (m.worker.isDead() ? r(undefined) : m.worker.once('exit', r))));
      for (const m of members.values()) m.worker.kill('SIGTERM');
      const deadline = setTimeout(() => {
        for (const m of members.values()) m.worker.kill('SIGKILL');
      }, shutdownGraceMs + 2000);
      Promise.all(exits)
        .then(() => clearTimeout(deadline))
        .then(() => rt.plugins.stop())
        .then(
          () => resolve(failedAtStart ? 1 : 0),
          (e: unknown) => {
            logger.error({ err: e }, 'Shutdown failed.');
            resolve(1);
          },
        );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
    const watch = setInterval(() => {
      if (failedAtStart && !stopping) {
        logger.error({ err: failedAtStart }, 'Workers could not start.');
        clearInterval(watch);
        stop('worker failure');
      }
      if (stopping) clearInterval(watch);
    }, 100);
  });
}
