// Live decisions: the decision log as it happens (server-sent events), filtered by path,
// result, time, decision id and input field, with a per-path rate plot, pause/resume, the
// log's upload and drop counters, and "open in playground".

import { api, decisionStream, type DecisionCounters, type DecisionEvent } from '../api.js';
import { legend, lineChart } from '../chart.js';
import { clear, fmtTime, h, json, type Page } from '../dom.js';
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

/**
 * The input search: `field=value` (a dotted path into the input, `input.` optional) matches
 * when the field's value is `value` (as JSON, or as the string); any other text matches an
 * input whose JSON contains it.
 */
export function inputMatcher(q: string): (input: unknown) => boolean {
  const text = q.trim();
  if (!text) return () => true;
  const eq = /^([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*=\s*(.*)$/.exec(text);
  if (!eq) return (input) => JSON.stringify(input ?? null).includes(text);
  const path = eq[1]!.replace(/^input\./, '').split('.');
  const want = eq[2]!.trim();
  return (input) => {
    let v: unknown = input;
    for (const k of path) {
      if (v === null || typeof v !== 'object') return false;
      v = (v as Record<string, unknown>)[k];
    }
    if (v === undefined) return false;
    return JSON.stringify(v) === want || (typeof v === 'string' && v === want) || String(v) === want;
  };
}

/** The counters line: uploaded, buffered, dropped by reason, and the last upload error. */
function countersView(c: DecisionCounters): HTMLElement {
  if (!c.enabled) return h('span');
  if (!c.available) return h('span.muted', {}, 'upload counters are not available here');
  const item = (key: string, label: string, n: number, bad = false) => h('span.counter' + (bad && n ? '.bad' : ''), { 'data-counter': key }, h('b', {}, n), ` ${label}`);
  return h('span.counters-in', {},
    item('uploaded', 'uploaded', c.uploaded),
    item('buffered', 'buffered', c.buffered),
    item('dropped_buffer_size_limit', 'dropped (buffer full)', c.dropped.buffer_size_limit, true),
    item('dropped_rate_limit', 'dropped (rate limit)', c.dropped.rate_limit, true),
    item('dropped_event_too_large', 'dropped (too large)', c.dropped.event_too_large, true),
    c.error ? h('span.log-error.bad', { title: c.error.code }, `last upload failed: ${c.error.message}`) : null);
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
    // a --v0-compatible server's policies are Rego v0: the playground reads them as such
    if (server.rego_version === 'v0') state.regoVersion = 'v0';
    state.data = JSON.stringify(server.data, null, 2);
    for (const [name, b] of Object.entries(ev.bundles ?? {})) {
      const now = server.bundles[name];
      if (!now) warnings.push(`bundle ${name} (revision ${b.revision ?? '?'}) is no longer active`);
      else if (b.revision !== undefined && now.revision !== b.revision) warnings.push(`bundle ${name} decided at revision ${b.revision} and is now at revision ${now.revision ?? '?'}`);
    }
    // the same revisions, but data or policies written since (the Data or Policy API, an adapter)
    if (!warnings.length && server.changed_at && Date.parse(server.changed_at) >= Date.parse(ev.timestamp)) {
      warnings.push(`the server's policies or data changed at ${fmtTime(server.changed_at)}, after this decision`);
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
  const inputF = h('input.f-input', { type: 'text', placeholder: 'input: user=alice, or any text', 'aria-label': 'search by input field', spellcheck: 'false' });
  const pause = h('button.pause', { type: 'button', title: 'hold new decisions; the table stays as it is' }, 'Pause');
  const held = h('span.held.muted');
  const counters = h('div.log-counters.muted');
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
    h('div.toolbar', {}, pathF, resultF, timeF, idF, inputF, counter, pause, held, live),
    counters,
    h('section.panel', {}, h('div.panel-head', {}, h('h3', {}, `Decisions per second, by path (last ${WINDOW_S}s)`)), plot),
    h('section.panel', {}, table),
  ));

  let inputMatches = inputMatcher('');
  const matches = (ev: DecisionEvent, now: number): boolean => {
    if (!inputMatches(ev.input)) return false;
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
      h('td.time', { title: ev.timestamp }, fmtTime(ev.timestamp)),
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
    const entries = [...perPath.entries()].sort();
    const series = entries.map(([p, buckets], i) => ({ name: p, color: COLORS[i % COLORS.length]!, points: buckets.map((v, x): [number, number] => [x - WINDOW_S + 1, v]) }));
    const svg = lineChart(series, {
      x: [-WINDOW_S + 1, 0],
      xTicks: [-WINDOW_S + 1, -45, -30, -15, 0],
      xLabel: (x) => (x === 0 ? 'now' : `${-x + (x === -WINDOW_S + 1 ? 1 : 0)}s ago`),
      yLabel: (y) => `${Number.isInteger(y) ? y : y.toFixed(1)}/s`,
      yMin: 1,
      yTitle: 'decisions/s',
      // about the size it is drawn at, so the labels keep their size
      width: 1200,
      height: 170,
    });
    const items = series.map((s, i) => ({ name: s.name, color: s.color, text: `${s.name} — ${(entries[i]![1].reduce((a, b) => a + b, 0) / WINDOW_S).toFixed(2)}/s` }));
    clear(plot, svg, items.length ? legend(items) : h('div.legend', {}, h('span.muted', {}, 'no decisions in the last minute')));
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
  inputF.addEventListener('input', () => {
    inputMatches = inputMatcher(inputF.value);
    refresh();
  });
  // paused: new decisions wait here, the table and plot stay as they are
  let paused: DecisionEvent[] | undefined;
  const add = (ev: DecisionEvent) => {
    if (events.some((e) => e.decision_id === ev.decision_id)) return;
    events.push(ev);
    if (events.length > MAX_EVENTS) events.splice(0, events.length - MAX_EVENTS);
  };
  pause.addEventListener('click', () => {
    if (paused) {
      paused.forEach(add);
      paused = undefined;
      pause.textContent = 'Pause';
      pause.classList.remove('on');
      held.textContent = '';
      refresh();
    } else {
      paused = [];
      pause.textContent = 'Resume';
      pause.classList.add('on');
      held.textContent = 'paused';
    }
  });
  for (const el of [resultF, timeF]) el.addEventListener('change', refresh);
  refresh();

  const stream = decisionStream({
    decision(ev) {
      if (paused) {
        paused.push(ev);
        held.textContent = `paused: ${paused.length} new`;
        return;
      }
      add(ev);
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
  const tick = window.setInterval(() => paused || renderPlot(), 1000);
  const loadCounters = () =>
    api.decisionCounters().then(
      (c) => clear(counters, countersView(c)),
      () => {},
    );
  void loadCounters();
  const countersTick = window.setInterval(() => void loadCounters(), 2000);
  return () => {
    stream.close();
    clearInterval(tick);
    clearInterval(countersTick);
  };
};
