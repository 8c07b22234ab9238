// The plugins `regolith run` starts from the configuration: src/plugins' PluginManager
// (service clients, bundle downloads and activation, decision logs, status, discovery), and what the
// server needs from it (plugin states, the status document, the decision hook).

import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../plugins/config/index.js';
import { PluginManager } from '../plugins/manager.js';
import { followingFeed } from '../plugins/discovery/feed.js';
import type { RegolithEngine } from '../engine/store-engine.js';
import type { ServerOptions } from '../server/index.js';
import type { RegoVersion } from '../engine/index.js';
import type { UploadStatus } from '../plugins/logs/plugin.js';
import type { WrittenEvent } from '../plugins/logs/event-bytes.js';

export interface RunningPlugins {
  serverOptions: Pick<ServerOptions, 'pluginStatus' | 'status' | 'decisionLogger' | 'decisionLoggerReadsBody' | 'registry' | 'events'>;
  /** The decision log as logged (masked), for the web console; undefined when logging is off. */
  decisionFeed?: {
    recent(limit: number): string[];
    subscribe(fn: (eventJson: string) => void): () => void;
    /** The upload counters and last error of the decision-log plugin running now (none while discovery has logging off). */
    uploadStatus?(): UploadStatus | undefined;
  };
  /** Logs an event a worker wrote (dropped while decision logging is off). */
  logWritten(e: WrittenEvent): void;
  /** Stops the plugins, within `graceMs` when given (--shutdown-grace-period). */
  stop(graceMs?: number): Promise<void>;
}

export async function startPlugins(o: {
  config: Config;
  engine: RegolithEngine;
  logger: Logger;
  /** Where decision logs and status go with `console: true`: the server's format, always at info (as OPA's console logger). */
  consoleLogger?: Logger;
  regoVersion: RegoVersion;
  registry?: Registry;
}): Promise<RunningPlugins> {
  const bootRaw = structuredClone(o.config.raw);
  const manager = new PluginManager({
    config: o.config,
    engine: o.engine,
    regoVersion: o.regoVersion,
    logger: o.logger,
    console: o.consoleLogger,
    registry: o.registry,
    // opa.runtime() in a discovery policy: the boot configuration and the environment, as OPA gives them.
    runtime: () => ({ config: bootRaw, env: { ...process.env } }),
  });
  // Downloads go on in the background; /health reports NOT_READY until the first activation.
  await manager.start();
  return {
    serverOptions: manager.serverOptions() as RunningPlugins['serverOptions'],
    // With discovery, decision logging may start (or stop) with any configuration: the feed follows it.
    decisionFeed: manager.discovery ? { ...followingFeed(manager), uploadStatus: () => manager.decisionLogs?.uploadStatus() } : manager.decisionLogs,
    // (the plugin running now: with discovery it may come and go)
    logWritten: (e) => void manager.decisionLogs?.recordWritten(e),
    stop: (graceMs) => manager.stop(graceMs),
  };
}
