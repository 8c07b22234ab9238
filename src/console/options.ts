// What the runtime gives the console: where its pages are, and what it reaches only
// through these functions (the decision log, impact analysis, the playground's sandbox).

export interface ConsoleOptions {
  /** Directory with index.html and assets/ (built into dist/ui by the frontend build). */
  assetsDir: string;
  /** Decision-log events as they are logged (masked/dropped exactly as the logs), or undefined when decision logging is off. */
  decisions?: {
    recent(limit: number): string[];
    subscribe(fn: (eventJson: string) => void): () => void;
    /** The decision-log plugin's upload status (its counters and last error); undefined while none runs (discovery has logging off). */
    uploadStatus?(): { metrics?: Record<string, number>; code?: string; message?: string } | undefined;
  };
  /** Impact analysis (replay); answers the HTTP status and JSON body to send. */
  impact?: (request: unknown) => Promise<{ status: number; body: unknown }>;
  /**
   * Playground evaluation away from the server process (a child with a memory limit, killed
   * on timeout): a policy that exhausts memory must not take the server down. Takes the
   * request's JSON text, answers the status and JSON text. In-process when absent (tests).
   */
  evaluate?: (requestJSON: string) => Promise<{ status: number; body: string }>;
  /**
   * The other processes that answer requests (the workers of --workers), each by id with
   * its registry's getMetricsAsJSON(): the dashboard's latency and decisions/s add their
   * request histograms up. Read when the dashboard samples or is asked, never per decision.
   */
  otherProcesses?: OtherProcesses;
  /** The Rego version the server parses its policies with (--v0-compatible: v0; default v1): the replay opens the playground in it. */
  regoVersion?: 'v0' | 'v1';
  /**
   * The names of the bundles the command line's paths activated (-b, a *.tar.gz path): the
   * Bundles card lists them as local, with the revision their manifest in the store gives.
   * The status API has no such bundles (OPA's status plugin reports downloaded ones only).
   */
  localBundles?: () => Iterable<string>;
  /** Milliseconds between the status history's samples (default 10 s; tests go faster). */
  statusSampleMs?: number;
}

export type OtherProcesses = () => Promise<{ id: string; metrics: unknown }[]>;
