// Status: the last hour as three charts (decisions per second, latency percentiles, memory)
// from the server's samples, and the history of bundle errors.

import type { StatusResponse } from '../api.js';
import { legend, lineChart, type Series } from '../chart.js';
import { fmtBytes, fmtTime, h } from '../dom.js';

const HOUR_MS = 60 * 60_000;

function chartBox(cls: string, title: string, series: Series[], yLabel: (y: number) => string, yTitle: string, now: number, legendText: (s: Series) => string): HTMLElement {
  const svg = lineChart(series, {
    x: [now - HOUR_MS, now],
    xTicks: [now - HOUR_MS, now - 45 * 60_000, now - 30 * 60_000, now - 15 * 60_000, now],
    xLabel: (x) => (x === now ? 'now' : `${Math.round((now - x) / 60_000)}m ago`),
    yLabel,
    yTitle,
    // about the size it is drawn at, so the labels keep their size
    width: 420,
    height: 170,
  });
  return h(`div.history-chart.${cls}` as 'div', {}, h('h5', {}, title), svg, legend(series.map((s) => ({ name: s.name, color: s.color, text: legendText(s) }))));
}

const last = (s: Series) => s.points.at(-1)?.[1];

export function historyCharts(st: StatusResponse, now = Date.now()): HTMLElement {
  const samples = st.history?.samples ?? [];
  const ms = (v: number | null) => (v === null ? undefined : v * 1000);
  const pts = (f: (x: (typeof samples)[number]) => number | undefined): [number, number][] => samples.flatMap((x) => {
    const v = f(x);
    return v === undefined ? [] : [[x.t, v] as [number, number]];
  });
  const decisions: Series[] = [{ name: 'decisions/s', color: '#2f6fde', points: pts((x) => x.decisions_per_s) }];
  const latency: Series[] = [
    { name: 'p50', color: '#2b8a3e', points: pts((x) => ms(x.latency.p50)) },
    { name: 'p90', color: '#e8590c', points: pts((x) => ms(x.latency.p90)) },
    { name: 'p99', color: '#c92a2a', points: pts((x) => ms(x.latency.p99)) },
  ];
  const memory: Series[] = [
    { name: 'rss', color: '#5f3dc4', points: pts((x) => x.rss / 2 ** 20) },
    { name: 'heap used', color: '#0b7285', points: pts((x) => x.heap_used / 2 ** 20) },
  ];
  const num = (v: number | undefined, unit: string, d = 2) => (v === undefined ? '–' : `${v.toFixed(d)} ${unit}`);
  const every = st.history ? `one sample every ${Math.round(st.history.interval_ms / 1000)} s` : '';
  return h('div.history', {},
    samples.length ? null : h('p.muted', {}, `No samples yet (${every}).`),
    chartBox('decisions', 'Decisions per second', decisions, (y) => (y >= 10 ? y.toFixed(0) : y.toFixed(1)), 'decisions/s', now, (s) => `${s.name} — now ${num(last(s), '/s')}`),
    chartBox('latency', 'Request latency (ms), per interval', latency, (y) => (y >= 10 ? y.toFixed(0) : y.toFixed(1)), 'ms', now, (s) => `${s.name} — ${num(last(s), 'ms')}`),
    chartBox('memory', 'Memory (MiB)', memory, (y) => y.toFixed(0), 'MiB', now, (s) => `${s.name} — ${fmtBytes(last(s) === undefined ? undefined : last(s)! * 2 ** 20)}`),
    h('p.muted.history-note', {}, `The last hour, ${every}, since the server started.`),
  );
}

export function errorHistory(st: StatusResponse): HTMLElement {
  const errors = [...(st.bundle_errors ?? [])].reverse();
  return h('table', {},
    h('thead', {}, h('tr', {}, ...['first seen', 'kind', 'name', 'code', 'message'].map((t) => h('th', {}, t)))),
    h('tbody', {}, ...(errors.length
      ? errors.map((e) => h('tr', {}, h('td', { title: e.time }, fmtTime(e.time, true)), h('td', {}, e.kind), h('td', {}, e.name), h('td', {}, h('code', {}, e.code)), h('td.bad', {}, e.message)))
      : [h('tr', {}, h('td.muted', { colspan: 5 }, 'No errors since the server started.'))])));
}
