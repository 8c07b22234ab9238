// Status: the server (version, labels, active configuration), bundles with their error
// history, plugins and adapters, decision rate and latency, memory, and the last hour
// (status-history.ts). Polls every 2s.

import { api, type StatusResponse } from '../api.js';
import { clear, fmtBytes, h, json, type Page } from '../dom.js';
import { errorHistory, historyCharts } from './status-history.js';

const POLL_MS = 2000;

/** Latency, given in seconds (null before the first request). */
function latencyText(sec: number | null | undefined): string {
  if (sec === undefined || sec === null || Number.isNaN(sec)) return '–';
  const v = sec * 1000;
  return v < 1 ? `${(v * 1000).toFixed(0)} µs` : `${v.toFixed(v < 10 ? 2 : 0)} ms`;
}

function ago(ts: unknown): string {
  if (typeof ts !== 'string' || !ts || ts.startsWith('0001-')) return '–';
  const s = Math.round((Date.now() - Date.parse(ts)) / 1000);
  const rel = s < 60 ? `${s}s ago` : s < 3600 ? `${Math.round(s / 60)}m ago` : `${Math.round(s / 3600)}h ago`;
  return `${new Date(ts).toLocaleString()} (${rel})`;
}

function uptime(s: number | undefined): string {
  if (s === undefined) return '–';
  const d = Math.floor(s / 86400);
  const hh = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return [d ? `${d}d` : '', hh ? `${hh}h` : '', m || hh || d ? `${m}m` : '', `${Math.floor(s % 60)}s`].filter(Boolean).join(' ');
}

function stateBadge(state: string | undefined): HTMLElement {
  const s = state ?? 'unknown';
  return h('span.badge.state-' + s.toLowerCase().replace(/[^a-z_]/g, ''), {}, s);
}

function card(title: string, body: Node, cls = ''): HTMLElement {
  return h(`section.panel.card${cls ? `.${cls}` : ''}` as 'section', {}, h('div.panel-head', {}, h('h3', {}, title)), body);
}

function table(heads: string[], rows: Node[][], empty: string): HTMLElement {
  return h('table', {},
    h('thead', {}, h('tr', {}, ...heads.map((t) => h('th', {}, t)))),
    h('tbody', {}, ...(rows.length ? rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c)))) : [h('tr', {}, h('td.muted', { colspan: heads.length }, empty))])));
}

/** A bundle's (or adapter's) last error — OPA's status keeps it until the next success — or OK; a plugin state when that is all there is. */
function lastError(b: Record<string, unknown>): HTMLElement {
  const errors = Array.isArray(b['errors']) ? (b['errors'] as unknown[]).map(String) : [];
  if (b['code'] || b['message'] || errors.length) {
    const msg = [b['code'], b['message']].filter(Boolean).map(String).join(': ') || errors[0]!;
    return h('span.bad', { title: errors.join('\n') }, msg, errors.length ? h('ul.errors', {}, ...errors.map((e) => h('li', {}, e))) : null);
  }
  if (typeof b['state'] === 'string' && b['state'] !== 'OK') return stateBadge(b['state']);
  return h('span.ok', {}, 'OK');
}

const text = (s: unknown) => document.createTextNode(s === undefined || s === null || s === '' ? '–' : String(s));

export const statusPage: Page = (root) => {
  const body = h('div.status-grid', {}, h('p.muted', {}, 'Loading status…'));
  const updated = h('span.muted.updated');
  clear(root, h('div.page.status', {}, h('div.toolbar', {}, h('h2', {}, 'Server status'), updated), body));

  // per_path counts the decisions of the last minute: the rate is count / 60.
  let stopped = false;
  let timer: number | undefined;
  // the configuration's disclosure stays as the user left it across refreshes
  let configOpen = false;

  const render = (st: StatusResponse) => {
    const perPath = st.decisions?.per_path ?? {};
    const rate = (n: number) => `${(n / 60).toFixed(2)}/s`;
    const totalRate = Object.values(perPath).reduce((a, n) => a + n, 0) / 60;

    const bundleRow = (name: string, b: Record<string, unknown>): Node[] => [
      text(name),
      h('code', {}, String(b['active_revision'] || b['revision'] || '–')),
      text(ago(b['last_successful_activation'])),
      text(ago(b['last_successful_download'])),
      lastError(b),
    ];
    const bundles = Object.entries(st.bundles ?? {}).map(([key, b]) => bundleRow(String(b['name'] ?? key), b));
    // loaded from the command line: never downloaded, active since start (or the last --watch reload)
    for (const [name, b] of Object.entries(st.local_bundles ?? {})) bundles.push(bundleRow(`${name} (local)`, b));
    const disc = st['discovery'] as Record<string, unknown> | undefined;
    if (disc && typeof disc === 'object') bundles.push(bundleRow(`${String(disc['name'] ?? 'discovery')} (discovery)`, disc));
    const plugins = Object.entries(st.plugins ?? {}).map(([name, p]) => [text(name), stateBadge(p?.state), text(p?.message ?? '')]);
    const adapters = Object.entries((st['adapters'] ?? {}) as Record<string, Record<string, unknown>>).map(([name, a]) => [
      text(String(a['name'] ?? name)), h('code', {}, String(a['active_revision'] || a['revision'] || '–')), text(ago(a['last_successful_activation'] ?? a['last_successful_request'])), lastError(a),
    ]);
    const paths = Object.entries(perPath).sort((a, b) => b[1] - a[1]).map(([p, n]) => [h('code', {}, p), text(n), text(rate(n))]);
    const mem = st.memory ?? {};
    const v = st.version;
    const server = kvTable([
      [text('version'), h('code.version', {}, v?.version ?? '–')],
      ...(v?.build_commit ? [[text('build commit'), h('code', {}, v.build_commit)]] : []),
      [text('uptime'), text(uptime(st.uptime_s))],
      [text('labels'), h('span.labels', {}, ...Object.entries(st.labels ?? {}).map(([k, val]) => h('span.label', { 'data-label': k }, h('code', {}, `${k}=${val}`))))],
    ]);
    const config = h('details.config', { open: configOpen }, h('summary', {}, 'active configuration (secrets removed)'), h('pre', {}, json(st.config ?? {})));
    config.addEventListener('toggle', () => (configOpen = config.open));

    clear(body,
      h('div.stats.top', {},
        kv('uptime', uptime(st.uptime_s)),
        kv('decisions/s', totalRate.toFixed(2)),
        kv('latency p50', latencyText(st.latency?.p50)),
        kv('latency p90', latencyText(st.latency?.p90)),
        kv('latency p99', latencyText(st.latency?.p99)),
        kv('memory rss', fmtBytes(mem['rss'])),
        kv('heap used', fmtBytes(mem['heapUsed'])),
      ),
      // the last hour spans the grid: above the cards, so it leaves no empty cell beside one
      card('Last hour', historyCharts(st), 'last-hour'),
      card('Server', h('div', {}, server, config), 'server'),
      card('Bundles', table(['name', 'revision', 'last activation', 'last download', 'last error'], bundles, 'No bundles configured.'), 'bundles'),
      card('Bundle errors', errorHistory(st), 'bundle-errors'),
      card('Plugins', table(['plugin', 'state', 'message'], plugins, 'No plugins.'), 'plugins'),
      adapters.length ? card('Adapters', table(['adapter', 'revision', 'last activation', 'last error'], adapters, ''), 'adapters') : null,
      card('Decisions by path', table(['path', 'last minute', 'rate'], paths, 'No decisions in the last minute.'), 'paths'),
      card('Memory', table(['', 'bytes'], Object.entries(mem).map(([k, v]) => [text(k), text(fmtBytes(v))]), '–'), 'memory'),
    );
    updated.textContent = `updated ${new Date().toLocaleTimeString()}`;
  };

  const poll = async () => {
    try {
      const st = await api.status();
      if (!stopped) render(st);
    } catch (e) {
      if (!stopped) clear(body, h('div.banner.error', {}, `Could not load status: ${(e as Error).message}`));
    }
    if (!stopped) timer = window.setTimeout(poll, POLL_MS);
  };
  void poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
};

/** Rows of a label and its value, no header. */
function kvTable(rows: Node[][]): HTMLElement {
  return h('table.kv', {}, h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))));
}

function kv(label: string, value: string): HTMLElement {
  return h('div.stat', { 'data-stat': label }, h('div.stat-n', {}, value), h('div.stat-l', {}, label));
}
