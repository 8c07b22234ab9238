// Live decisions: the decision log as it happens (server-sent events), filtered by path,
// result, time and decision id, with a per-path rate plot and "open in playground".

import { api, decisionStream, type DecisionEvent } from '../api.js';
import { clear, h, json, type Page } from '../dom.js';
import { shareURL, type PlaygroundState } from '../share.js';

const MAX_EVENTS = 1000;
const WINDOW_S = 60;
const COLORS = ['#2f6fde', '#d9480f', '#2b8a3e', '#ae3ec9', '#e8590c', '#0b7285', '#c2255c', '#5f3dc4'];

type ResultFilter = 'any' | 'true' | 'false' | 'undefined' | 'other';

function resultKind(ev: DecisionEvent): ResultFilter {
  if (!('result' in ev) || ev.result === undefined) return 'undefined';
  if (ev.result === true) return 'true';
  if (ev.result === false) return 'false';
  return 'other';
}

function short(v: unknown, n = 60): string {
  const s = v === undefined ? 'undefined' : JSON.stringify(v);
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function revisions(ev: DecisionEvent): string {
  return Object.entries(ev.bundles ?? {}).map(([name, b]) => `${name}@${b.revision ?? '?'}`).join(', ');
}

/**
 * The playground state replaying one decision as the server made it: its modules and base
 * data, the decision's input and query. The server keeps only the active revision of each
 * bundle: when the revision that decided is gone, the current one is used and the page
 * says so.
 */
async function replayState(ev: DecisionEvent): Promise<PlaygroundState> {
  const path = (ev.path ?? '').replace(/^\/+|\/+$/g, '');
  const query = ev.query ?? (path ? `data.${path.split('/').join('.')}` : 'data');
  const rev = revisions(ev);
  const state: PlaygroundState = {
    modules: { 'policy.rego': 'package main\n' },
    input: ev.input === undefined ? '' : JSON.stringify(ev.input, null, 2),
    data: '',
    query,
    unknowns: '',
    explain: 'off',
    coverage: false,
    note: `Replaying decision ${ev.decision_id} (${ev.timestamp}${rev ? `, bundle revision ${rev}` : ''}); it returned ${short(ev.result, 200)}. Modules and data are the server's.`,
  };
  const warnings: string[] = [];
  try {
    const server = await api.replay();
    if (Object.keys(server.modules).length) state.modules = server.modules;
    state.data = JSON.stringify(server.data, null, 2);
    for (const [name, b] of Object.entries(ev.bundles ?? {})) {
      const now = server.bundles[name];
      if (!now) warnings.push(`bundle ${name} (revision ${b.revision ?? '?'}) is no longer active`);
      else if (b.revision !== undefined && now.revision !== b.revision) warnings.push(`bundle ${name} decided at revision ${b.revision} and is now at revision ${now.revision ?? '?'}`);
    }
    if (warnings.length) warnings.push('the server keeps no earlier revision, so these are its current modules and data: the result may differ');
  } catch (e) {
    warnings.push(`could not load the server's modules and data (${(e as Error).message}): the result may differ`);
  }
  const masked = [ev['erased'], ev['masked']].flatMap((x) => (Array.isArray(x) ? x : []));
  if (masked.length) warnings.push(`the decision log masked ${masked.join(', ')}: the result may differ`);
  if (warnings.length) state.warning = `Careful: ${warnings.join('; ')}.`;
  return state;
}

export const decisionsPage: Page = async (root) => {
  const events: DecisionEvent[] = [];
  const pathF = h('input.f-path', { type: 'text', placeholder: 'path contains…', 'aria-label': 'filter by path' });
  const resultF = h('select.f-result', { 'aria-label': 'filter by result' },
    ...(['any', 'true', 'false', 'undefined', 'other'] as const).map((v) => h('option', { value: v }, v === 'any' ? 'any result' : `result: ${v}`)));
  const timeF = h('select.f-time', { 'aria-label': 'filter by time' },
    h('option', { value: '0' }, 'any time'), h('option', { value: '60' }, 'last minute'), h('option', { value: '300' }, 'last 5 minutes'), h('option', { value: '3600' }, 'last hour'));
  const idF = h('input.f-id', { type: 'text', placeholder: 'decision_id…', 'aria-label': 'filter by decision id' });
  const counter = h('span.count.muted');
  const live = h('span.live', {}, 'connecting…');
  const plot = h('div.rate-plot');
  const tbody = h('tbody');
  const table = h('table.decisions', {},
    h('thead', {}, h('tr', {}, h('th', {}, 'time'), h('th', {}, 'path'), h('th', {}, 'result'), h('th', {}, 'input'), h('th', {}, 'revision'), h('th', {}, 'decision_id'), h('th'))),
    tbody);
  clear(root, h('div.page.decisions', {}, h('p.muted', {}, 'Loading decisions…')));

  let initial;
  try {
    initial = await api.decisions(200);
  } catch (e) {
    clear(root, h('div.page.decisions', {}, h('div.banner.error', {}, `Could not load decisions: ${(e as Error).message}`)));
    return;
  }
  const showDisabled = (hint: string) =>
    clear(root, h('div.page.decisions', {},
      h('div.banner.note.disabled', {},
        h('h3', {}, 'Decision logging is off'),
        h('p', {}, hint),
        h('p', {}, 'For example, log decisions to the console with ', h('code', {}, '--set decision_logs.console=true'), ' or in the configuration file:'),
        h('pre', {}, 'decision_logs:\n  console: true'),
      )));
  if (!initial.enabled) return showDisabled(initial.hint);
  events.push(...initial.events.slice(-MAX_EVENTS));

  clear(root, h('div.page.decisions', {},
    h('div.toolbar', {}, pathF, resultF, timeF, idF, counter, live),
    h('section.panel', {}, h('div.panel-head', {}, h('h3', {}, `Decisions per second, by path (last ${WINDOW_S}s)`)), plot),
    h('section.panel', {}, table),
  ));

  const matches = (ev: DecisionEvent, now: number): boolean => {
    if (pathF.value && !(ev.path ?? '').includes(pathF.value.trim())) return false;
    if (resultF.value !== 'any' && resultKind(ev) !== resultF.value) return false;
    const since = Number(timeF.value);
    if (since && now - Date.parse(ev.timestamp) > since * 1000) return false;
    if (idF.value && !ev.decision_id.includes(idF.value.trim())) return false;
    return true;
  };

  const row = (ev: DecisionEvent): HTMLElement[] => {
    const detail = h('tr.detail', { hidden: true }, h('td', { colspan: 7 },
      h('div.detail-grid', {}, h('div', {}, h('h5', {}, 'input'), h('pre', {}, json(ev.input))), h('div', {}, h('h5', {}, 'result'), h('pre', {}, json(ev.result))))));
    const open = h('button.open', { type: 'button', title: 'replay this decision in the playground' }, 'open in playground');
    open.addEventListener('click', async (e) => {
      e.stopPropagation();
      location.href = await shareURL(await replayState(ev));
    });
    const kind = resultKind(ev);
    const tr = h('tr.decision', { 'data-id': ev.decision_id },
      h('td.time', { title: ev.timestamp }, new Date(ev.timestamp).toLocaleTimeString()),
      h('td.path', {}, ev.path ?? ev.query ?? ''),
      h('td.result', {}, h('span.badge.r-' + kind, {}, short(ev.result, 30))),
      h('td.input', {}, h('code', {}, short(ev.input))),
      h('td.rev', {}, revisions(ev)),
      h('td.id', {}, h('code', {}, ev.decision_id)),
      h('td', {}, open));
    tr.addEventListener('click', () => (detail.hidden = !detail.hidden));
    return [tr, detail];
  };

  const renderTable = () => {
    const now = Date.now();
    const shown = events.filter((e) => matches(e, now)).reverse().slice(0, 300);
    clear(tbody, ...shown.flatMap(row));
    if (!shown.length) tbody.append(h('tr', {}, h('td.muted', { colspan: 7 }, events.length ? 'No decision matches the filters.' : 'No decisions yet: they appear here as the server makes them.')));
    counter.textContent = `${shown.length} of ${events.length} shown`;
  };

  const renderPlot = () => {
    const now = Date.now();
    const perPath = new Map<string, number[]>();
    for (const ev of events) {
      const age = Math.floor((now - Date.parse(ev.timestamp)) / 1000);
      if (age < 0 || age >= WINDOW_S) continue;
      const p = ev.path ?? '(query)';
      let b = perPath.get(p);
      if (!b) perPath.set(p, (b = new Array<number>(WINDOW_S).fill(0)));
      b[WINDOW_S - 1 - age]!++;
    }
    const W = 600;
    const H = 120;
    const max = Math.max(1, ...[...perPath.values()].flat());
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.classList.add('plot');
    const axis = document.createElementNS(ns, 'line');
    Object.entries({ x1: 0, y1: H - 1, x2: W, y2: H - 1, class: 'axis' }).forEach(([k, v]) => axis.setAttribute(k, String(v)));
    svg.append(axis);
    const legend = h('div.legend');
    [...perPath.entries()].sort().forEach(([p, buckets], i) => {
      const color = COLORS[i % COLORS.length]!;
      const line = document.createElementNS(ns, 'polyline');
      line.setAttribute('points', buckets.map((v, x) => `${((x + 0.5) * W) / WINDOW_S},${H - 2 - (v / max) * (H - 8)}`).join(' '));
      line.setAttribute('stroke', color);
      line.setAttribute('data-path', p);
      line.classList.add('series');
      svg.append(line);
      const total = buckets.reduce((a, b) => a + b, 0);
      legend.append(h('span.legend-item', { 'data-path': p }, h('span.swatch', { style: `background:${color}` }), `${p} — ${(total / WINDOW_S).toFixed(2)}/s`));
    });
    if (!perPath.size) legend.append(h('span.muted', {}, 'no decisions in the last minute'));
    clear(plot, svg, h('div.plot-scale.muted', {}, `peak ${max}/s`), legend);
  };

  let pending = false;
  const refresh = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      renderTable();
      renderPlot();
    });
  };
  for (const el of [pathF, idF]) el.addEventListener('input', refresh);
  for (const el of [resultF, timeF]) el.addEventListener('change', refresh);
  refresh();

  const stream = decisionStream({
    decision(ev) {
      if (events.some((e) => e.decision_id === ev.decision_id)) return;
      events.push(ev);
      if (events.length > MAX_EVENTS) events.splice(0, events.length - MAX_EVENTS);
      refresh();
    },
    disabled: showDisabled,
    open() {
      live.textContent = '● live';
      live.classList.add('on');
    },
    lost() {
      live.textContent = 'reconnecting…';
      live.classList.remove('on');
    },
  });
  const tick = window.setInterval(renderPlot, 1000);
  return () => {
    stream.close();
    clearInterval(tick);
  };
};
