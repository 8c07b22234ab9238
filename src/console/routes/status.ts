// GET /ui/api/status: what the console's dashboard shows — the server's version, labels and
// active configuration (redacted as GET /v1/config redacts it), bundles (adapters and the
// discovery bundle too, whether or not the status plugin runs) and their error history,
// plugin states, decisions per path in the last minute, request latency percentiles,
// memory and uptime, and the last hour in samples (status-history.ts).
//
// Decisions per path are counted from the decision-log feed. The feed is subscribed to only
// while someone looks (from the first status request until none came for IDLE_MS), so a
// server whose console nobody opens pays nothing per decision; on subscribing, the events
// already in the feed are counted by their timestamps.

import { isPlainObject, type PlainObject, type Value } from '../../value/index.js';
import type { App, ServerContext } from '../../server/context.js';
import type { RouteDecl } from '../../server/route-table.js';
import type { ConsoleOptions } from '../options.js';
import type { DurationHistogram } from '../../server/duration-histogram.js';
import { latency, type Latency } from './latency.js';
import { route } from '../../server/handler.js';
import { sendJSON } from '../../server/respond.js';
import { toJSONText } from '../../value/index.js';
import { redactConfig } from '../../server/redact.js';
import { SAMPLE_MS, StatusHistory } from './status-history.js';

const WINDOW_S = 60;
const IDLE_MS = 5 * 60_000;

/** Counts per path over the last 60 seconds, in one-second slots. */
export class PathCounter {
  private readonly slots: { second: number; counts: Map<string, number> }[] = [];

  add(path: string, ms = Date.now()): void {
    const second = Math.floor(ms / 1000);
    const i = second % WINDOW_S;
    let s = this.slots[i];
    if (!s || s.second !== second) {
      if (s && s.second > second) return; // older than what the slot holds: outside the window
      this.slots[i] = s = { second, counts: new Map() };
    }
    s.counts.set(path, (s.counts.get(path) ?? 0) + 1);
  }

  counts(ms = Date.now()): Record<string, number> {
    const now = Math.floor(ms / 1000);
    const out: Record<string, number> = {};
    for (const s of this.slots) {
      if (!s || s.second <= now - WINDOW_S || s.second > now) continue;
      for (const [p, n] of s.counts) out[p] = (out[p] ?? 0) + n;
    }
    return out;
  }
}

/** The decision's path and time from an encoded event (undefined for ad-hoc queries, which have no path). */
function pathOf(json: string): { path: string; ms: number } | undefined {
  try {
    const e = JSON.parse(json) as { path?: unknown; timestamp?: unknown };
    if (typeof e.path !== 'string') return undefined;
    const ms = typeof e.timestamp === 'string' ? Date.parse(e.timestamp) : NaN;
    return { path: e.path, ms: Number.isFinite(ms) ? ms : Date.now() };
  } catch {
    return undefined;
  }
}

/** Subscribes to the feed while the dashboard is polled. */
class DecisionRates {
  private counter = new PathCounter();
  private unsubscribe: (() => void) | undefined;
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly decisions: NonNullable<ConsoleOptions['decisions']>) {}

  perPath(): Record<string, number> {
    if (!this.unsubscribe) {
      this.counter = new PathCounter();
      const now = Date.now();
      for (const json of this.decisions.recent(1000)) {
        const p = pathOf(json);
        if (p && p.ms > now - WINDOW_S * 1000) this.counter.add(p.path, p.ms);
      }
      this.unsubscribe = this.decisions.subscribe((json) => {
        const p = pathOf(json);
        if (p) this.counter.add(p.path);
      });
    }
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.stop(), IDLE_MS);
    this.idle.unref();
    return this.counter.counts();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
  }
}

export { latency, type Latency };

/** The status document's part `key`, when the status plugin runs. */
function fromDocument(ctx: ServerContext, key: string): Value | undefined {
  const doc = ctx.opts.status?.();
  return doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, Value>)[key] : undefined;
}

/**
 * Bundle, adapter and discovery bundle statuses: from the plugins themselves (the status
 * plugin need not be configured), else the status document, else — for bundles — the
 * states of the bundle-like plugins.
 */
export function bundleParts(ctx: ServerContext): { bundles: Value; adapters?: Value; discovery?: Value } {
  const direct = ctx.opts.bundleStatus?.();
  const adapters = direct ? direct.adapters : fromDocument(ctx, 'adapters');
  const discovery = direct ? direct.discovery : fromDocument(ctx, 'discovery');
  let bundles = direct ? direct.bundles : fromDocument(ctx, 'bundles');
  if (bundles === undefined && !direct) {
    const out: Record<string, Value> = {};
    for (const [name, s] of Object.entries(ctx.opts.pluginStatus?.() ?? {})) {
      if (!s || (name !== 'bundle' && name !== 'discovery' && !name.startsWith('adapter/'))) continue;
      out[name] = s.message !== undefined ? { state: s.state, message: s.message } : { state: s.state };
    }
    bundles = out;
  }
  return { bundles: bundles ?? {}, ...(adapters !== undefined ? { adapters } : {}), ...(discovery !== undefined ? { discovery } : {}) };
}

/** name -> { revision, roots } of the local bundles, as their manifests stand in the store. */
function localBundles(ctx: ServerContext, names: Iterable<string>): Record<string, Value> {
  const out: Record<string, Value> = {};
  const sys = ctx.opts.engine.store.snapshot().data['system'];
  const recorded = isPlainObject(sys ?? null) ? (sys as PlainObject)['bundles'] : undefined;
  for (const name of names) {
    const b = isPlainObject(recorded ?? null) ? (recorded as PlainObject)[name] : undefined;
    const m = isPlainObject(b ?? null) ? (b as PlainObject)['manifest'] : undefined;
    if (!isPlainObject(m ?? null)) continue;
    const { revision, roots } = m as PlainObject;
    out[name] = { revision: typeof revision === 'string' ? revision : '', roots: roots ?? [''] };
  }
  return out;
}

/** The dashboard shows the group: the primary holds the bundles, the plugins and the decision log. */
export const statusRoutes: readonly RouteDecl[] = [{ method: 'GET', path: '/ui/api/status', answeredBy: 'primary' }];

export function registerUiStatus(app: App, ctx: ServerContext, c: ConsoleOptions, durations: DurationHistogram): void {
  const rates = c.decisions ? new DecisionRates(c.decisions) : undefined;
  const history = new StatusHistory(durations, () => bundleParts(ctx), c.statusSampleMs, undefined, c.otherProcesses).start();
  app.get(
    '/ui/api/status',
    route('ui/api/status', async () => {
      const plugins: Record<string, Value> = {};
      for (const [name, s] of Object.entries(ctx.opts.pluginStatus?.() ?? {})) {
        if (s) plugins[name] = s.message !== undefined ? { state: s.state, message: s.message } : { state: s.state };
      }
      const { bundles, adapters, discovery } = bundleParts(ctx);
      const config = redactConfig(ctx.config as Record<string, unknown>, ctx.version.version) as Record<string, Value>;
      const docLabels = fromDocument(ctx, 'labels');
      const body: Record<string, Value> = {
        version: { ...ctx.version },
        // the status plugin's labels carry the instance id too; else the configuration's (with the version)
        labels: docLabels ?? config['labels'] ?? {},
        config,
        bundles,
        bundle_errors: history.errors as unknown as Value,
        history: { interval_ms: c.statusSampleMs ?? SAMPLE_MS, samples: history.samples as unknown as Value },
        plugins,
        decisions: { per_path: rates?.perPath() ?? {} },
        latency: (await history.latencyNow()) as unknown as Value,
        memory: { ...process.memoryUsage() },
        uptime_s: process.uptime(),
      };
      if (c.localBundles) body['local_bundles'] = localBundles(ctx, c.localBundles());
      if (adapters !== undefined) body['adapters'] = adapters;
      if (discovery !== undefined) body['discovery'] = discovery;
      return sendJSON(toJSONText(body as Value));
    }),
  );
}
