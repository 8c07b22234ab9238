// The primary's logged decisions relayed to the workers whose web console streams them. The
// primary listens to its decision feed only while some worker wants it: a listener makes the
// feed decode every event into a string (~1.4 µs a decision in the primary's profile under
// --workers 2), which nobody would read.

import type { Member } from './member.js';

interface Feed {
  subscribe(fn: (eventJson: string) => void): () => void;
}

export class FeedRelay {
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly feed: Feed | undefined,
    private readonly members: () => Iterable<Member>,
  ) {}

  /** Call when a worker's wish changes or a worker leaves: listens while any worker wants the feed. */
  update(): void {
    let wanted = false;
    for (const m of this.members()) if (m.wantsFeed) wanted = true;
    if (wanted && !this.unsubscribe && this.feed && !this.stopped) {
      this.unsubscribe = this.feed.subscribe((json) => {
        for (const m of this.members()) if (m.wantsFeed) m.send({ t: 'decision-event', json });
      });
    } else if (!wanted) this.detach();
  }

  /** Stops relaying for good (the primary is stopping). */
  stop(): void {
    this.stopped = true;
    this.detach();
  }

  private detach(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }
}
