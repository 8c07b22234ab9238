// Impact analysis: every changed decision, a page at a time, exported as NDJSON or CSV (the
// file is made in the browser from the report: nothing more is asked of the server).

import type { ChangeKind, ImpactChange } from '../api.js';
import { clear, download, fmtTime, h } from '../dom.js';

export const PAGE_SIZE = 50;

export const KIND_LABEL: Record<ChangeKind, string> = { 'allow->deny': 'allow → deny', 'deny->allow': 'deny → allow', value: 'value changed' };

/** Marks a change the live policy makes too today: data or policies changed since the decision, not the candidate. */
export function sinceBadge(): HTMLElement {
  return h('span.badge.since', { title: 'the live policy answers the same today: data or policies changed since this decision, not the candidate' }, 'not the candidate');
}

const text = (v: unknown) => (v === undefined ? '' : JSON.stringify(v));

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line end. */
function csvField(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const CSV_COLUMNS = ['decision_id', 'timestamp', 'path', 'kind', 'input', 'before', 'after'] as const;

export function changesCSV(changes: ImpactChange[]): string {
  const rows = changes.map((c) => [c.decision_id, c.timestamp ?? '', c.path, c.kind, text(c.input), text(c.before), text(c.after)].map(csvField).join(','));
  return [CSV_COLUMNS.join(','), ...rows].join('\r\n') + '\r\n';
}

export function changesNDJSON(changes: ImpactChange[]): string {
  return changes.map((c) => JSON.stringify(c)).join('\n') + (changes.length ? '\n' : '');
}

/** The section listing `changes`, paged, with the export buttons. */
export function changesSection(changes: ImpactChange[], truncated: boolean): HTMLElement {
  let page = 0;
  const pages = Math.max(1, Math.ceil(changes.length / PAGE_SIZE));
  const tbody = h('tbody');
  const info = h('span.page-info.muted');
  const prev = h('button.page-prev', { type: 'button' }, '‹ previous');
  const next = h('button.page-next', { type: 'button' }, 'next ›');
  const render = () => {
    const rows = changes.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
    clear(tbody, ...(rows.length
      ? rows.map((c) => h('tr.change', { 'data-id': c.decision_id, 'data-kind': c.kind },
        h('td.time', { title: c.timestamp ?? '' }, fmtTime(c.timestamp, true)),
        h('td', {}, h('code', {}, c.path)),
        h('td', {}, h('span.badge.k-' + c.kind.replace('->', '-'), {}, KIND_LABEL[c.kind]), c.live_agrees ? sinceBadge() : null),
        h('td.before', {}, h('code', {}, c.before === undefined ? 'undefined' : text(c.before))),
        h('td.after', {}, h('code', {}, c.after === undefined ? 'undefined' : text(c.after))),
        h('td.input', {}, h('code', {}, text(c.input))),
        h('td', {}, h('code.muted', {}, c.decision_id))))
      : [h('tr', {}, h('td.muted', { colspan: 7 }, 'No decision changes.'))]));
    info.textContent = changes.length ? `${page * PAGE_SIZE + 1}–${Math.min(changes.length, (page + 1) * PAGE_SIZE)} of ${changes.length}${truncated ? ' (the first ones only: more changed)' : ''}` : '';
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  };
  prev.addEventListener('click', () => ((page = Math.max(0, page - 1)), render()));
  next.addEventListener('click', () => ((page = Math.min(pages - 1, page + 1)), render()));
  const ndjson = h('button.export-ndjson', { type: 'button', disabled: !changes.length }, 'Export NDJSON');
  const csv = h('button.export-csv', { type: 'button', disabled: !changes.length }, 'Export CSV');
  ndjson.addEventListener('click', () => download('impact-changes.ndjson', 'application/x-ndjson', changesNDJSON(changes)));
  csv.addEventListener('click', () => download('impact-changes.csv', 'text/csv', changesCSV(changes)));
  render();
  return h('section.panel.changes', {},
    h('div.panel-head', {}, h('h3', {}, `Changed decisions (${changes.length})`), h('span.spacer'), info, prev, next, ndjson, csv),
    h('table.changes', {},
      h('thead', {}, h('tr', {}, ...['time', 'path', 'kind', 'before', 'after', 'input', 'decision_id'].map((t) => h('th', {}, t)))),
      tbody));
}
