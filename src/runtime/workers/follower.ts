// A worker's side of replication: it takes the primary's whole state, then every change in
// order; while the workers switch to a change together (freeze, apply), new requests wait
// (hold()). It also keeps what the primary pushes: plugin states, answers to forwarded
// requests, logged decisions for the console's stream, metric requests.

import type { Registry } from 'prom-client';
import type { Store } from '../../storage/index.js';
import type { PluginStatus } from '../../server/index.js';
import type { ForwardedRequest, ForwardedResponse } from '../../server/cluster.js';
import type { DecisionFeed } from '../../plugins/logs/feed.js';
import type { ToPrimary, ToWorker } from './protocol.js';
import { applyDelta, applyFullState } from './replication.js';

export const send = (m: ToPrimary, done?: () => void): void => {
  if (process.send && process.connected) process.send(m, undefined, {}, () => done?.());
  else done?.();
};

export class Follower {
  states: Record<string, PluginStatus | undefined> = {};
  /** The primary's answer to the connection counts (balance.ts). */
  onShare: (share: number | null) => void = () => {};
  /** Resolves once the whole state is in the store. */
  readonly joined: Promise<void>;
  private join!: () => void;
  private held: { promise: Promise<void>; release: () => void } | undefined;
  private readonly answers = new Map<number, (r: { res?: ForwardedResponse; error?: string }) => void>();
  private nextId = 1;
  // changes apply one at a time, in the order they came
  private applying = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
    private readonly feed: DecisionFeed,
  ) {
    this.joined = new Promise((r) => (this.join = r));
    process.on('message', (m: ToWorker) => this.receive(m));
    send({ t: 'hello' });
  }

  /** While the workers switch to a new state together: what new requests wait for. */
  hold(): Promise<void> | undefined {
    return this.held?.promise;
  }

  forward(req: ForwardedRequest): Promise<ForwardedResponse> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.answers.set(id, (r) => (r.res ? resolve(r.res) : reject(new Error(r.error ?? 'no answer'))));
      send({ t: 'forward', id, req });
    });
  }

  private receive(m: ToWorker): void {
    switch (m.t) {
      case 'state':
        this.applying = this.applying.then(async () => {
          await applyFullState(this.store, m.state);
          send({ t: 'ready', seq: m.seq });
          this.join();
        });
        break;
      case 'freeze': {
        let release!: () => void;
        const promise = new Promise<void>((r) => (release = r));
        this.held ??= { promise, release };
        send({ t: 'frozen', seq: m.seq });
        break;
      }
      case 'apply':
        this.applying = this.applying.then(async () => {
          let error: string | undefined;
          try {
            await applyDelta(this.store, m.delta);
          } catch (e) {
            error = (e as Error).message;
          }
          const h = this.held;
          this.held = undefined;
          h?.release();
          send({ t: 'applied', seq: m.seq, error });
        });
        break;
      case 'plugins':
        this.states = m.states;
        break;
      case 'answer':
        this.answers.get(m.id)?.(m);
        this.answers.delete(m.id);
        break;
      case 'decision-event':
        this.feed.push(m.json);
        break;
      case 'share':
        this.onShare(m.share);
        break;
      case 'metrics-req':
        void this.registry.getMetricsAsJSON().then((json) => send({ t: 'metrics', id: m.id, json }));
        break;
    }
  }
}
