// The web console's decision feed when discovery is configured: decision logging may be
// turned on, off or on again by each discovered configuration, so the feed follows the
// decision log plugin of the moment. It listens to a plugin only while it has listeners
// of its own (a feed nobody watches costs nothing per decision).

export interface FeedSource {
  recent(limit: number): string[];
  subscribe(fn: (eventJson: string) => void): () => void;
}

/** What the feed needs of the plugin manager. */
export interface FeedOwner {
  readonly decisionLogs?: FeedSource;
  onReconfigure(fn: () => void): void;
}

export function followingFeed(owner: FeedOwner): FeedSource {
  const listeners = new Set<(eventJson: string) => void>();
  let attached: FeedSource | undefined;
  let detach = (): void => {};
  const follow = (): void => {
    const want = listeners.size ? owner.decisionLogs : undefined;
    if (want === attached) return;
    detach();
    attached = want;
    detach = want
      ? want.subscribe((e) => {
          for (const fn of listeners) fn(e);
        })
      : () => {};
  };
  owner.onReconfigure(follow);
  return {
    recent: (limit) => owner.decisionLogs?.recent(limit) ?? [],
    subscribe(fn) {
      listeners.add(fn);
      follow();
      return () => {
        listeners.delete(fn);
        follow();
      };
    },
  };
}
