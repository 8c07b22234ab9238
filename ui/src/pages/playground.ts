// Playground: edit modules, input and data; evaluate a query with explanations, coverage
// and partial evaluation; format; share the whole state as a link.

import type { EditorView } from '@codemirror/view';
import { api, RequestError, type ApiError, type EvalResponse, type ExplainMode, type Location, type TraceEvent } from '../api.js';
import { clear, h, json, type Page } from '../dom.js';
import { createEditor, replaceDoc, resetDoc, showErrors, showMarks } from '../editor.js';
import { decodeState, shareURL, type PlaygroundState } from '../share.js';

export const STORAGE_KEY = 'regolith.playground';

const EXAMPLE: PlaygroundState = {
  modules: {
    'policy.rego': `package authz

default allow := false

# Admins may do anything.
allow if input.user.role == "admin"

# Owners may read their documents.
allow if {
\tinput.method == "GET"
\tdata.owners[input.resource] == input.user.name
}
`,
  },
  input: JSON.stringify({ user: { name: 'alice', role: 'dev' }, method: 'GET', resource: 'doc1' }, null, 2),
  data: JSON.stringify({ owners: { doc1: 'alice' } }, null, 2),
  query: 'data.authz.allow',
  unknowns: '',
  explain: 'off',
  coverage: false,
};

/** The playground's last state (also what impact analysis offers as "edited modules"). */
export function savedState(): PlaygroundState | undefined {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as PlaygroundState) : undefined;
  } catch {
    return undefined;
  }
}

/** Where a JSON.parse error points, 1-based, when the message says. */
function jsonErrorAt(text: string, e: unknown): { row: number; col: number; message: string } {
  const message = e instanceof Error ? e.message : String(e);
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) return { row: Number(lc[1]), col: Number(lc[2]), message };
  const pos = /position (\d+)/.exec(message);
  if (pos) {
    const before = text.slice(0, Number(pos[1])).split('\n');
    return { row: before.length, col: (before.at(-1)?.length ?? 0) + 1, message };
  }
  return { row: 1, col: 1, message };
}

export const playgroundPage: Page = async (root, params) => {
  const code = params.get('s');
  let state: PlaygroundState = EXAMPLE;
  let loadError = '';
  if (code) {
    try {
      state = await decodeState(code);
    } catch (e) {
      loadError = `could not read the shared state: ${(e as Error).message}`;
    }
  } else state = savedState() ?? EXAMPLE;
  const modules: Record<string, string> = { ...state.modules };
  if (!Object.keys(modules).length) modules['policy.rego'] = '';
  let active = Object.keys(modules)[0]!;

  // What the last evaluation found, per file: errors, coverage, the traced line.
  let errors: ApiError[] = [];
  let coverage: EvalResponse['coverage'];
  let traced: Location | undefined;

  // ---- layout ----
  const query = h('input.query', { type: 'text', value: state.query, 'aria-label': 'query', placeholder: 'data.authz.allow', spellcheck: 'false' });
  const unknowns = h('input.unknowns', { type: 'text', value: state.unknowns, 'aria-label': 'unknowns', placeholder: 'unknowns, e.g. input.user', spellcheck: 'false' });
  const explain = h('select.explain', { 'aria-label': 'explain' }, ...(['off', 'notes', 'fails', 'full'] as const).map((m) => h('option', { value: m, selected: m === state.explain }, `explain: ${m}`)));
  const cover = h('input.coverage', { type: 'checkbox', checked: state.coverage, 'aria-label': 'coverage' });
  const evalBtn = h('button.primary.eval', { type: 'button', title: 'Ctrl+Enter' }, 'Evaluate');
  const fmtBtn = h('button.fmt', { type: 'button' }, 'Format');
  const shareBtn = h('button.share', { type: 'button' }, 'Share');
  const shareOut = h('input.share-url', { type: 'text', readonly: true, 'aria-label': 'share link', hidden: true });
  const tabs = h('div.tabs');
  const fileName = h('input.filename', { type: 'text', 'aria-label': 'file name', spellcheck: 'false' });
  const sourceHost = h('div.editor.source');
  const trace = h('div.trace', { hidden: true });
  const inputHost = h('div.editor.input');
  const dataHost = h('div.editor.data');
  const output = h('div.output', {}, h('p.muted', {}, 'Evaluate to see results.'));

  clear(
    root,
    h('div.page.playground', {},
      loadError ? h('div.banner.error', {}, loadError) : null,
      state.note ? h('div.banner.note', {}, state.note) : null,
      h('div.toolbar', {}, query, unknowns, explain, h('label.check', {}, cover, 'coverage'), evalBtn, fmtBtn, shareBtn, shareOut),
      h('div.pg-grid', {},
        h('section.panel.modules', {}, h('div.panel-head', {}, tabs, fileName), h('div.source-wrap', {}, sourceHost, trace)),
        h('section.side', {},
          h('div.panel', {}, h('div.panel-head', {}, h('h3', {}, 'Input')), inputHost),
          h('div.panel', {}, h('div.panel-head', {}, h('h3', {}, 'Data')), dataHost),
          h('div.panel', {}, h('div.panel-head', {}, h('h3', {}, 'Output')), output),
        ),
      ),
    ),
  );

  const current = (): PlaygroundState => {
    modules[active] = source.state.doc.toString();
    return {
      modules: { ...modules },
      input: inputEd.state.doc.toString(),
      data: dataEd.state.doc.toString(),
      query: query.value,
      unknowns: unknowns.value,
      explain: explain.value as ExplainMode,
      coverage: cover.checked,
    };
  };
  let saveTimer: number | undefined;
  const save = () => {
    clearTimeout(saveTimer);
    saveTimer = window.setTimeout(() => localStorage.setItem(STORAGE_KEY, JSON.stringify(current())), 200);
  };

  const source: EditorView = createEditor(sourceHost, modules[active]!, 'rego', save);
  const inputEd = createEditor(inputHost, state.input, 'json', save);
  const dataEd = createEditor(dataHost, state.data, 'json', save);
  for (const el of [query, unknowns, explain, cover]) el.addEventListener('change', save);

  /** Paint what the last evaluation said about the file on screen. */
  const paint = () => {
    const cov = coverage?.[active];
    showMarks(source, {
      covered: cov?.covered,
      notCovered: cov?.not_covered,
      traced: traced && traced.file === active ? traced.row : undefined,
    });
    showErrors(source, errors.filter((e) => e.location?.file === active).map((e) => ({ row: e.location?.row, col: e.location?.col, message: e.message })));
  };

  const renderTabs = () => {
    clear(tabs, ...Object.keys(modules).map((f) =>
      h('span.tab' + (f === active ? '.active' : ''), {},
        h('button.tab-name', { type: 'button', 'data-file': f, onclick: () => select(f) }, f),
        Object.keys(modules).length > 1 ? h('button.tab-close', { type: 'button', title: `remove ${f}`, onclick: () => remove(f) }, '×') : null,
      ),
    ), h('button.tab-add', { type: 'button', title: 'add a module', onclick: add }, '+'));
    fileName.value = active;
  };
  const select = (f: string) => {
    if (f === active) return;
    modules[active] = source.state.doc.toString();
    active = f;
    resetDoc(source, modules[f] ?? '');
    renderTabs();
    paint();
  };
  const add = () => {
    let n = Object.keys(modules).length + 1;
    while (modules[`module${n}.rego`] !== undefined) n++;
    modules[active] = source.state.doc.toString();
    modules[`module${n}.rego`] = `package module${n}\n`;
    select(`module${n}.rego`);
    save();
  };
  const remove = (f: string) => {
    modules[active] = source.state.doc.toString();
    delete modules[f];
    if (f === active) {
      active = Object.keys(modules)[0]!;
      resetDoc(source, modules[active]!);
    }
    renderTabs();
    paint();
    save();
  };
  fileName.addEventListener('change', () => {
    const name = fileName.value.trim();
    if (!name || name === active || modules[name] !== undefined) return void (fileName.value = active);
    modules[name] = source.state.doc.toString();
    delete modules[active];
    active = name;
    renderTabs();
    save();
  });
  renderTabs();

  const goTo = (loc: Location | undefined) => {
    if (!loc || modules[loc.file] === undefined) return;
    traced = loc;
    select(loc.file);
    paint();
  };
  const locText = (l?: Location) => (l ? `${l.file}:${l.row}${l.col ? `:${l.col}` : ''}` : '');

  const renderErrors = (message: string, errs: ApiError[]) => {
    clear(output,
      h('div.errors', {},
        h('p.error-title', {}, message),
        errs.length ? h('ul', {}, ...errs.map((e) => h('li.error', {},
          e.location ? h('a.loc', { href: '#', onclick: (ev: Event) => { ev.preventDefault(); goTo(e.location); } }, locText(e.location)) : null,
          ' ', h('code', {}, e.code), ' ', e.message,
        ))) : null,
      ),
    );
  };

  const renderTrace = (events: TraceEvent[] | undefined) => {
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
  };

  const renderResult = (res: EvalResponse) => {
    const parts: (Node | null)[] = [];
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
  };

  const evaluate = async () => {
    const st = current();
    errors = [];
    coverage = undefined;
    traced = undefined;
    showErrors(inputEd, []);
    showErrors(dataEd, []);
    let input: unknown;
    let data: unknown;
    try {
      input = st.input.trim() ? JSON.parse(st.input) : undefined;
    } catch (e) {
      showErrors(inputEd, [jsonErrorAt(st.input, e)]);
      return renderErrors('The input is not valid JSON', [{ code: 'invalid_input', message: (e as Error).message }]);
    }
    try {
      data = st.data.trim() ? JSON.parse(st.data) : undefined;
    } catch (e) {
      showErrors(dataEd, [jsonErrorAt(st.data, e)]);
      return renderErrors('The data is not valid JSON', [{ code: 'invalid_data', message: (e as Error).message }]);
    }
    const unk = st.unknowns.split(',').map((s) => s.trim()).filter(Boolean);
    evalBtn.disabled = true;
    output.classList.add('busy');
    try {
      const res = await api.eval({
        modules: st.modules,
        query: st.query,
        ...(input !== undefined ? { input } : {}),
        ...(data !== undefined ? { data } : {}),
        ...(st.explain !== 'off' ? { explain: st.explain } : {}),
        ...(st.coverage ? { coverage: true } : {}),
        ...(unk.length ? { unknowns: unk } : {}),
      });
      coverage = res.coverage;
      renderResult(res);
      renderTrace(res.explanation);
    } catch (e) {
      renderTrace(undefined);
      if (e instanceof RequestError) {
        errors = e.errors.length ? e.errors : [{ code: e.code, message: e.message }];
        renderErrors(e.message, errors);
        const first = errors.find((x) => x.location && modules[x.location.file] !== undefined);
        if (first?.location && first.location.file !== active) select(first.location.file);
      } else renderErrors(`Request failed: ${(e as Error).message}`, []);
    } finally {
      evalBtn.disabled = false;
      output.classList.remove('busy');
      paint();
    }
  };

  const format = async () => {
    const text = source.state.doc.toString();
    try {
      const res = await api.fmt(text, active);
      errors = errors.filter((e) => e.location?.file !== active);
      if (res.text !== text) replaceDoc(source, res.text);
      paint();
    } catch (e) {
      if (e instanceof RequestError) {
        errors = e.errors.length ? e.errors.map((x) => ({ ...x, location: x.location ? { ...x.location, file: active } : { file: active, row: 1, col: 1 } })) : [{ code: e.code, message: e.message, location: { file: active, row: 1, col: 1 } }];
        renderErrors(`Format failed: ${e.message}`, errors);
        paint();
      } else renderErrors(`Request failed: ${(e as Error).message}`, []);
    }
  };

  const share = async () => {
    const url = await shareURL(current());
    shareOut.hidden = false;
    shareOut.value = url;
    shareOut.select();
    history.replaceState(null, '', url);
    try {
      await navigator.clipboard.writeText(url);
      shareBtn.textContent = 'Link copied';
    } catch {
      shareBtn.textContent = 'Link ready';
    }
    setTimeout(() => (shareBtn.textContent = 'Share'), 2000);
  };

  evalBtn.addEventListener('click', () => void evaluate());
  fmtBtn.addEventListener('click', () => void format());
  shareBtn.addEventListener('click', () => void share());
  query.addEventListener('keydown', (e) => e.key === 'Enter' && void evaluate());
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void evaluate();
    }
  };
  root.addEventListener('keydown', onKey);
  return () => {
    root.removeEventListener('keydown', onKey);
    clearTimeout(saveTimer);
    localStorage.setItem(STORAGE_KEY, JSON.stringify(current()));
    source.destroy();
    inputEd.destroy();
    dataEd.destroy();
  };
};
