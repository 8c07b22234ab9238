// What the primary answers for its workers: the requests they forward (writes, /v1/status,
// events, the console's dashboard — one app over the one store; the workers checked
// access), /metrics summed over every process, and the plugin states they report.

import { AggregatorRegistry } from 'prom-client';
import { createApp } from '../../server/index.js';
import type { ForwardedRequest, ForwardedResponse } from '../../server/cluster.js';
import { consoleRoutes } from '../../console/index.js';
import type { PrimaryRuntime } from './primary.js';
import type { Member } from './member.js';
import type { Replicator } from './replicator.js';

const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);

export function ownerAnswers(rt: PrimaryRuntime, members: () => Member[], replicator: Replicator): (req: ForwardedRequest) => Promise<ForwardedResponse> {
  let metricIds = 0;
  // the workers answer the decisions: the console's dashboard reads their request histograms too
  const workers = () => Promise.all(members().filter((m) => m.joined).map(async (m) => ({ id: String(m.worker.id), metrics: await m.metrics(++metricIds) })));
  const console = rt.console ? { ...rt.console, otherProcesses: workers } : undefined;
  const owner = createApp({ engine: rt.engine, config: rt.config.raw, logger: rt.logger, processMetrics: true, ...rt.plugins.serverOptions, registry: rt.registry, families: console ? [consoleRoutes(console)] : undefined });
  return async (req) => {
    const path = req.url.split('?')[0]!;
    if (path === '/metrics') {
      const id = ++metricIds;
      const parts = await Promise.all(members().filter((m) => m.joined).map((m) => m.metrics(id)));
      const all = AggregatorRegistry.aggregate([...(parts as Parameters<typeof AggregatorRegistry.aggregate>[0]), await rt.registry.getMetricsAsJSON()]);
      return { status: 200, headers: { 'content-type': all.contentType }, body: Buffer.from(await all.metrics()) };
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const res = await owner.app.fetch(new Request(`http://primary${req.url}`, { method: req.method, headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body }), {});
    const body = Buffer.from(await res.arrayBuffer());
    // a write is answered once every worker has it
    if (req.method !== 'GET' && req.method !== 'POST') await replicator.caughtUp(rt.store.snapshot().revision);
    return { status: res.status, headers: Object.fromEntries(res.headers), body };
  };
}

/** Sends the plugin states to the workers when they change (or to one, in full). */
export function statesPusher(rt: PrimaryRuntime, members: () => Member[]): (to?: Member) => void {
  let last = '';
  return (to) => {
    const states = rt.plugins.serverOptions.pluginStatus?.() ?? {};
    const text = JSON.stringify(states);
    if (!to) {
      if (text === last) return;
      last = text;
    }
    for (const m of to ? [to] : members()) m.send({ t: 'plugins', states });
  };
}
