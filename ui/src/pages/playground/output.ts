// The output panel and the trace beside the source: errors (with links to their
// locations), results or partial evaluation's queries, coverage and timings, the trace.

import type { ApiError, EvalResponse, Location, TraceEvent } from '../../api.js';
import { clear, h, json } from '../../dom.js';

export const locText = (l?: Location): string => (l ? `${l.file}:${l.row}${l.col ? `:${l.col}` : ''}` : '');

export function renderErrors(output: HTMLElement, message: string, errs: ApiError[], goTo: (loc: Location | undefined) => void): void {
  clear(output,
    h('div.errors', {},
      h('p.error-title', {}, message),
      errs.length ? h('ul', {}, ...errs.map((e) => h('li.error', {},
        e.location ? h('a.loc', { href: '#', onclick: (ev: Event) => { ev.preventDefault(); goTo(e.location); } }, locText(e.location)) : null,
        ' ', h('code', {}, e.code), ' ', e.message,
      ))) : null,
    ),
  );
}

/** The explanation's events, each a link to its location; hidden when there is none. */
export function renderTrace(trace: HTMLElement, events: TraceEvent[] | undefined, goTo: (loc: Location | undefined) => void): void {
  if (!events) {
    trace.hidden = true;
    return;
  }
  trace.hidden = false;
  const rows = events.map((ev) => {
    const row = h('li.trace-event.op-' + ev.op.toLowerCase(), { style: `padding-left:${0.25 + ev.depth * 0.75}em`, title: locText(ev.location) },
      h('span.op', {}, ev.op), ' ', h('span.msg', {}, ev.message),
      ev.location ? h('span.loc', {}, ` ${locText(ev.location)}`) : null,
    );
    row.addEventListener('click', () => {
      for (const r of trace.querySelectorAll('.selected')) r.classList.remove('selected');
      row.classList.add('selected');
      goTo(ev.location);
    });
    return row;
  });
  clear(trace, h('div.trace-head', {}, h('h3', {}, `Trace (${events.length})`)), events.length ? h('ol', {}, ...rows) : h('p.muted', {}, 'no trace events'));
}

export function renderResult(output: HTMLElement, res: EvalResponse, what?: string): void {
  const parts: (Node | null)[] = [];
  if (what) parts.push(h('p.evaluated.muted', {}, what));
  if (res.partial) {
    parts.push(h('div.partial', {},
      h('h4', {}, 'Partial evaluation'),
      h('h5', {}, 'Queries'),
      res.partial.queries.length ? h('pre.partial-queries', {}, res.partial.queries.join('\n\n')) : h('p.muted', {}, 'no queries: the query is always false'),
      res.partial.support.length ? h('h5', {}, 'Support') : null,
      res.partial.support.length ? h('pre.partial-support', {}, res.partial.support.join('\n\n')) : null,
    ));
  } else if (!res.result || res.result.length === 0) {
    parts.push(h('p.undefined', {}, 'undefined — the query has no results'));
  } else {
    parts.push(h('div.results', {}, ...res.result.map((r, i) => h('div.result', {},
      h('h4', {}, `Result ${i + 1}`),
      ...r.expressions.map((e) => h('div.expr', {}, h('code.expr-text', {}, e.text), h('pre.value', {}, json(e.value)))),
      r.bindings && Object.keys(r.bindings).length ? h('div.bindings', {}, h('h5', {}, 'Bindings'), h('pre', {}, json(r.bindings))) : null,
    ))));
  }
  if (res.printed) parts.push(h('div.printed', {}, h('h5', {}, 'print() output'), h('pre.printed-lines', {}, res.printed.join('\n'))));
  if (res.coverage) {
    let c = 0;
    let n = 0;
    for (const f of Object.values(res.coverage)) {
      c += f.covered.length;
      n += f.covered.length + f.not_covered.length;
    }
    parts.push(h('p.coverage-summary', {}, `Coverage: ${n ? Math.round((100 * c) / n) : 100}% of ${n} lines (green: evaluated, red: not)`));
  }
  if (res.metrics) {
    const t = Object.entries(res.metrics).filter(([k]) => k.startsWith('timer_')).map(([k, v]) => `${k.replace(/^timer_|_ns$/g, '')} ${(v / 1e6).toFixed(2)} ms`);
    if (t.length) parts.push(h('p.metrics.muted', {}, t.join(' · ')));
  }
  clear(output, ...parts);
}
