// The playground's buttons: evaluate (the input and data checked as JSON here first) the
// query or the selection, load the server's data, format the active module, and share the
// whole state as a link.

import type { EditorView } from '@codemirror/view';
import { api, RequestError, type Location } from '../../api.js';
import { replaceDoc, showErrors } from '../../editor.js';
import { shareURL, type PlaygroundState } from '../../share.js';
import type { ModuleFiles } from './files.js';
import type { Findings } from './findings.js';
import type { Layout } from './layout.js';
import { renderErrors, renderResult, renderTrace } from './output.js';

export interface Playground {
  l: Layout;
  source: EditorView;
  inputEd: EditorView;
  dataEd: EditorView;
  files: ModuleFiles;
  findings: Findings;
  /** The whole state as it is on screen. */
  current(): PlaygroundState;
  /** Shows a location: its file in the editor, its line marked. */
  goTo(loc: Location | undefined): void;
  /** Paints the findings on the file in the editor. */
  paint(): void;
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

/**
 * What "evaluate selection" evaluates: the selected text, or with nothing selected the rule
 * whose head is at or above the cursor (its name, or its ref head `a.b.c`); undefined when
 * there is none.
 */
export function selectionQuery(source: EditorView): string | undefined {
  const { state } = source;
  const sel = state.selection.main;
  if (!sel.empty) return state.sliceDoc(sel.from, sel.to).trim() || undefined;
  for (let n = state.doc.lineAt(sel.head).number; n >= 1; n--) {
    const m = /^(?:default\s+)?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)/.exec(state.doc.line(n).text);
    if (m && m[1] !== 'package' && m[1] !== 'import') return m[1];
    if (m) return undefined;
  }
  return undefined;
}

export function evaluateSelection(p: Playground): Promise<void> {
  const query = selectionQuery(p.source);
  if (!query) {
    renderErrors(p.l.output, 'Nothing to evaluate: select an expression, or put the cursor in a rule', [], p.goTo);
    return Promise.resolve();
  }
  return evaluate(p, { query, file: p.files.active });
}

/** Replaces the Data panel with the server's data (data.system left out, as replay does). */
export async function loadServerData(p: Playground): Promise<void> {
  p.l.loadDataBtn.disabled = true;
  try {
    const server = await api.replay();
    replaceDoc(p.dataEd, JSON.stringify(server.data, null, 2));
  } catch (e) {
    renderErrors(p.l.output, `Could not load the server's data: ${(e as Error).message}`, [], p.goTo);
  } finally {
    p.l.loadDataBtn.disabled = false;
  }
}

/** Evaluates the query box, or `selection` read inside its module's package. */
export async function evaluate(p: Playground, selection?: { query: string; file: string }): Promise<void> {
  const { l, findings } = p;
  const st = p.current();
  findings.reset();
  showErrors(p.inputEd, []);
  showErrors(p.dataEd, []);
  let input: unknown;
  let data: unknown;
  try {
    input = st.input.trim() ? JSON.parse(st.input) : undefined;
  } catch (e) {
    showErrors(p.inputEd, [jsonErrorAt(st.input, e)]);
    return renderErrors(l.output, 'The input is not valid JSON', [{ code: 'invalid_input', message: (e as Error).message }], p.goTo);
  }
  try {
    data = st.data.trim() ? JSON.parse(st.data) : undefined;
  } catch (e) {
    showErrors(p.dataEd, [jsonErrorAt(st.data, e)]);
    return renderErrors(l.output, 'The data is not valid JSON', [{ code: 'invalid_data', message: (e as Error).message }], p.goTo);
  }
  const unk = st.unknowns.split(',').map((s) => s.trim()).filter(Boolean);
  l.evalBtn.disabled = true;
  l.evalSelBtn.disabled = true;
  l.output.classList.add('busy');
  try {
    const res = await api.eval({
      modules: st.modules,
      query: selection?.query ?? st.query,
      ...(selection ? { in_module: selection.file } : {}),
      ...(st.regoVersion === 'v0' ? { rego_version: 'v0' as const } : {}),
      ...(st.capabilities ? { capabilities: { builtins: st.capabilities.builtins.map((name) => ({ name })) } } : {}),
      ...(input !== undefined ? { input } : {}),
      ...(data !== undefined ? { data } : {}),
      ...(st.explain !== 'off' ? { explain: st.explain } : {}),
      ...(st.coverage ? { coverage: true } : {}),
      ...(unk.length ? { unknowns: unk } : {}),
    });
    findings.coverage = res.coverage;
    renderResult(l.output, res, selection ? `Selection in ${selection.file}'s package: ${selection.query}` : undefined);
    renderTrace(l.trace, res.explanation, p.goTo);
  } catch (e) {
    renderTrace(l.trace, undefined, p.goTo);
    if (e instanceof RequestError) {
      findings.errors = e.errors.length ? e.errors : [{ code: e.code, message: e.message }];
      renderErrors(l.output, e.message, findings.errors, p.goTo);
      const first = findings.errors.find((x) => x.location && p.files.has(x.location.file));
      if (first?.location && first.location.file !== p.files.active) p.files.select(first.location.file);
    } else renderErrors(l.output, `Request failed: ${(e as Error).message}`, [], p.goTo);
  } finally {
    l.evalBtn.disabled = false;
    l.evalSelBtn.disabled = false;
    l.output.classList.remove('busy');
    p.paint();
  }
}

export async function format(p: Playground): Promise<void> {
  const { findings } = p;
  const active = p.files.active;
  const text = p.source.state.doc.toString();
  try {
    const res = await api.fmt(text, active, p.current().regoVersion);
    findings.errors = findings.errors.filter((e) => e.location?.file !== active);
    if (res.text !== text) replaceDoc(p.source, res.text);
    p.paint();
  } catch (e) {
    if (e instanceof RequestError) {
      findings.errors = e.errors.length ? e.errors.map((x) => ({ ...x, location: x.location ? { ...x.location, file: active } : { file: active, row: 1, col: 1 } })) : [{ code: e.code, message: e.message, location: { file: active, row: 1, col: 1 } }];
      renderErrors(p.l.output, `Format failed: ${e.message}`, findings.errors, p.goTo);
      p.paint();
    } else renderErrors(p.l.output, `Request failed: ${(e as Error).message}`, [], p.goTo);
  }
}

export async function share(p: Playground): Promise<void> {
  const { shareOut, shareBtn } = p.l;
  const url = await shareURL(p.current());
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
}
