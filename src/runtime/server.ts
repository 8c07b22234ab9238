// The runtime behind `regolith run --server`: load the configuration and the paths into a
// document store, start the HTTP server(s) over a RegolithEngine, reload on file changes
// with --watch, and shut down cleanly on SIGINT/SIGTERM (requests in flight finish).

import cluster from 'node:cluster';
import { Registry } from 'prom-client';
import { watch, type FSWatcher } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Logger } from 'pino';
import { loadConfig, ConfigError, type Config } from '../plugins/config/index.js';
import { registerIntegrations } from '../integrations/index.js';
import { startServer, type AccessOptions, type RunningServer, type TLSOptions } from '../server/index.js';
import { RegolithEngine } from '../engine/store-engine.js';
import { Store } from '../storage/index.js';
import type { CustomBuiltin, Module, RegoVersion } from '../engine/index.js';
import { BuiltinsLoadError, loadBuiltinModules } from './custom-builtins.js';
import type { VerificationConfig } from '../bundle/index.js';
import { ExitError } from './errors.js';
import { listenFailure } from './listen-error.js';
import { ShutdownSignal, shutdownWait } from './shutdown.js';
import { loadPaths, LoadError, type Loaded } from './load-paths.js';
import { manifestRoots } from '../bundle/manifest.js';
import { rootsOverlapMessage } from '../bundle/roots.js';
import { buildPolicySet, CommandErrors, prettyErrorText, toErrorDetails } from './policy-set.js';
import { createRunLogger } from './logger.js';
import { startPlugins, type RunningPlugins } from './plugins.js';
import { startTracing, type Tracing } from './tracing/index.js';
import { installOwned, NOTHING_OWNED } from './install.js';
import { consoleRoutes } from '../console/index.js';
import { PlaygroundSandbox } from '../console/playground/sandbox.js';
import { impactHook } from '../console/impact/hook.js';

type Owned = Awaited<ReturnType<typeof installOwned>>;

export interface RunServerOptions {
  paths: string[];
  bundleMode: boolean;
  addrs: string[];
  configFile?: string;
  set: string[];
  setFile: string[];
  logLevel: string;
  logFormat: string;
  regoVersion: RegoVersion;
  watch: boolean;
  ignore: string[];
  shutdownGraceMs: number;
  /** --shutdown-wait-period: how long the server keeps serving after the signal before shutdown begins. */
  shutdownWaitMs?: number;
  /** Keys the -b bundles must be signed with (--verification-key). */
  verification?: VerificationConfig;
  tls?: TLSOptions;
  access?: AccessOptions;
  /** --diagnostic-addr: /health and /metrics only, outside the access policy. */
  diagnosticAddrs?: string[];
  unixSocketPerm?: string;
  /** --workers: worker processes serving the address (default: server.workers, else 1). */
  workers?: number | 'auto';
  /** --builtins: JavaScript modules of custom built-ins (besides the configuration's builtins.modules). */
  builtins?: string[];
}

interface LoadedPolicies {
  loaded: Loaded;
  parsed: Map<string, Module>;
}

async function load(o: RunServerOptions, builtins: CustomBuiltin[]): Promise<LoadedPolicies> {
  const loaded = await loadPaths({
    paths: o.bundleMode ? [] : o.paths,
    bundles: o.bundleMode ? o.paths : [],
    ignore: o.ignore,
    regoVersion: o.regoVersion,
    verification: o.verification,
  });
  // OPA activates the bundles together and refuses overlapping roots (two without a manifest own all of data)
  const overlap = rootsOverlapMessage((loaded.bundles ?? []).map((b) => ({ name: b.name, roots: manifestRoots(b.manifest) })));
  if (overlap) throw new LoadError(overlap);
  // Parse and compile up front so that broken policies are reported before listening.
  const set = buildPolicySet(loaded, { regoVersion: o.regoVersion, builtins });
  return { loaded, parsed: set.modules };
}

function readConfig(o: RunServerOptions): Config {
  registerIntegrations();
  try {
    return loadConfig({ configFile: o.configFile, set: o.set, setFile: o.setFile });
  } catch (e) {
    if (e instanceof ConfigError) throw new ExitError(e.message);
    throw e;
  }
}

function loadErrorText(e: unknown): string {
  return prettyErrorText(toErrorDetails(e));
}

function watchPaths(paths: string[], onChange: () => void): FSWatcher[] {
  let timer: NodeJS.Timeout | undefined;
  const fire = (): void => {
    clearTimeout(timer);
    timer = setTimeout(onChange, 100);
  };
  return paths.map((p) => watch(p.replace(/^[^:/]+:(?=.)/, ''), { recursive: true }, fire));
}

/** --watch: reload the paths on change; only what they own is replaced (bundles and API data stay). */
function watchReload(o: RunServerOptions, builtins: CustomBuiltin[], store: Store, owned: () => Owned, setOwned: (x: Owned) => void, logger: Logger): FSWatcher[] {
  return watchPaths(o.paths, () => {
    load(o, builtins)
      .then(async (next) => {
        setOwned(await installOwned(store, next.loaded, next.parsed, owned()));
        logger.info({ paths: o.paths }, 'Reloaded policies and data.');
      })
      .catch((e: unknown) => {
        const msg = e instanceof CommandErrors || e instanceof Error ? loadErrorText(e) : String(e);
        logger.error({ err: msg }, 'Reload failed; keeping the previous policies and data.');
      });
  });
}

/** The console's pages, built next to the CLI (dist/ui beside dist/cli). */
function consoleAssets(): string {
  return resolve(dirname(process.argv[1] ?? '.'), '..', 'ui');
}

/** The playground's child process, when the CLI runs from its built entry (it forks itself). */
function consoleSandbox(): PlaygroundSandbox | undefined {
  const entry = process.argv[1];
  if (!entry || !/\.m?js$/.test(entry)) return undefined;
  return new PlaygroundSandbox({ entry });
}

/**
 * How many worker processes; 0 (no --workers, no server.workers) serves in this process.
 * Asked for explicitly, even one worker runs under a primary (which restarts it if it dies).
 */
function workerCount(w: number | 'auto' | undefined): number {
  if (w === 'auto') return availableParallelism();
  return w ?? 0;
}

/** Runs the server until a signal; resolves with the exit code. */
export async function runServer(o: RunServerOptions): Promise<number> {
  const config = readConfig(o);
  const logger: Logger = createRunLogger(o.logLevel, o.logFormat);
  const workers = workerCount(o.workers ?? config.workers);
  let builtins: CustomBuiltin[];
  try {
    builtins = await loadBuiltinModules([...(o.builtins ?? []), ...(config.builtins ?? [])]);
  } catch (e) {
    if (e instanceof BuiltinsLoadError) throw new ExitError(e.message);
    throw e;
  }
  // distributed_tracing: before any server is created (the listener is wrapped then), in
  // every process; OpenTelemetry is loaded only here, only when configured
  let tracing: Tracing | undefined;
  if (config.distributed_tracing) {
    try {
      tracing = await startTracing(
        config.distributed_tracing,
        (err) => logger.error({ err }, 'Failed to shutdown OpenTelemetry trace exporter gracefully.'),
        // as OPA's otel error handler: each failed export is a warning
        (err) => logger.warn(`Distributed tracing: ${err.message}`),
      );
    } catch (e) {
      throw new ExitError(e instanceof Error ? e.message : String(e));
    }
  }
  if (cluster.isWorker && process.env['REGOLITH_WORKER']) {
    const { runWorker } = await import('./workers/worker.js');
    const entry = process.argv[1];
    const console = entry && /\.m?js$/.test(entry) ? { assetsDir: consoleAssets(), entry } : undefined;
    // the spans this worker still buffers go out before it leaves
    const flush = tracing ? () => tracing!.shutdown() : undefined;
    return runWorker({ config, logger, regoVersion: o.regoVersion, addrs: o.addrs, diagnosticAddrs: o.diagnosticAddrs ?? [], shutdownGraceMs: o.shutdownGraceMs, tls: o.tls, access: o.access, unixSocketPerm: o.unixSocketPerm, console, builtins, beforeLeave: flush });
  }
  const signal = new ShutdownSignal();
  let loaded: LoadedPolicies;
  try {
    loaded = await load(o, builtins);
  } catch (e) {
    throw new ExitError(loadErrorText(e));
  }
  const store = new Store({ onTriggerError: (err) => logger.error({ err }, 'store trigger failed') });
  let owned = await installOwned(store, loaded.loaded, loaded.parsed, NOTHING_OWNED);
  const engine = new RegolithEngine({ store, regoVersion: o.regoVersion, builtins });

  let plugins: RunningPlugins | undefined;
  let sandbox: PlaygroundSandbox | undefined;
  const servers: RunningServer[] = [];
  try {
    plugins = await startPlugins({ config, engine, logger, consoleLogger: createRunLogger('info', o.logFormat), regoVersion: o.regoVersion });
    if (workers > 0) {
      const { runPrimary } = await import('./workers/primary.js');
      const watchers = o.watch ? watchReload(o, builtins, store, () => owned, (next) => (owned = next), logger) : [];
      const feed = plugins.decisionFeed;
      const console = { assetsDir: consoleAssets(), regoVersion: o.regoVersion, decisions: feed, impact: impactHook({ engine, recent: feed ? (n) => feed.recent(n) : undefined }), localBundles: () => owned.bundles };
      try {
        return await runPrimary({ config, logger, store, engine, plugins, registry: plugins.serverOptions.registry ?? new Registry(), console }, workers, { graceMs: o.shutdownGraceMs, waitMs: o.shutdownWaitMs ?? 0 }, signal);
      } finally {
        for (const w of watchers) w.close();
        await tracing?.shutdown(); // the primary's own spans (the Envoy plugin's Checks)
      }
    }
    sandbox = consoleSandbox();
    const console = sandbox ? { assetsDir: consoleAssets(), regoVersion: o.regoVersion, decisions: plugins.decisionFeed, impact: impactHook({ engine, recent: plugins.decisionFeed ? (n) => plugins!.decisionFeed!.recent(n) : undefined }), evaluate: sandbox.evaluate, localBundles: () => owned.bundles } : undefined;
    for (const addr of o.addrs) {
      servers.push(
        await startServer({
          addr,
          engine,
          config: config.raw,
          logger,
          shutdownGraceMs: o.shutdownGraceMs,
          tls: o.tls,
          access: o.access,
          unixSocketPerm: o.unixSocketPerm,
          ...plugins.serverOptions,
          families: console ? [consoleRoutes(console)] : undefined,
        }),
      );
    }
    for (const addr of o.diagnosticAddrs ?? []) {
      servers.push(
        await startServer({ addr, engine, config: config.raw, logger, shutdownGraceMs: o.shutdownGraceMs, diagnostic: true, unixSocketPerm: o.unixSocketPerm, ...plugins.serverOptions }),
      );
    }
  } catch (e) {
    // the primary stopped its workers and the plugins itself
    if (workers > 0 && plugins) throw e;
    sandbox?.close();
    await Promise.all(servers.map((s) => s.close()));
    await plugins?.stop();
    throw listenFailure(e, [...o.addrs, ...(o.diagnosticAddrs ?? [])][servers.length]) ?? e;
  }

  const watchers = o.watch ? watchReload(o, builtins, store, () => owned, (next) => (owned = next), logger) : [];

  return new Promise<number>((resolve) => {
    const stop = async (signal: string): Promise<void> => {
      logger.info({ signal }, 'Received shutdown signal.');
      await shutdownWait({ graceMs: o.shutdownGraceMs, waitMs: o.shutdownWaitMs ?? 0 }, logger);
      for (const w of watchers) w.close();
      sandbox?.close();
      Promise.all(servers.map((s) => s.close()))
        .then(() => plugins?.stop(o.shutdownGraceMs))
        .then(() => tracing?.shutdown())
        .then(
          () => resolve(0),
          (e: unknown) => {
            logger.error({ err: e }, 'Shutdown failed.');
            resolve(1);
          },
        );
    };
    signal.onSignal((name) => void stop(name));
  });
}
