// Commits of the primary's store, replayed on every joined worker in order. A new worker
// gets the whole state, then every commit as a delta. A delta is switched to by all
// workers together: each first holds new requests (freeze), then applies and releases — so
// no worker answers from an older state once another answers from the newer.

import type { Logger } from 'pino';
import type { Store } from '../../storage/index.js';
import { deltaOf, fullStateOf, type Delta } from './replication.js';
import { Member } from './member.js';

export class Replicator {
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
