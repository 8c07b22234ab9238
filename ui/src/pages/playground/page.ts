// Playground: edit modules, input and data; evaluate a query with explanations, coverage
// and partial evaluation, or only the selection; print() output; Rego v0/v1 and
// capabilities; the server's data on demand; format; share the whole state as a link. This file wires the
// parts: state.ts (where the state comes from), layout.ts, files.ts (module tabs),
// findings.ts (marks on the source), output.ts, capabilities.ts, actions.ts (the buttons).

import type { ExplainMode, Location } from '../../api.js';
import type { Page } from '../../dom.js';
import { createEditor } from '../../editor.js';
import type { PlaygroundState } from '../../share.js';
import { evaluate, evaluateSelection, format, loadServerData, share, type Playground } from './actions.js';
import { capabilitiesControl } from './capabilities.js';
import { renderErrors } from './output.js';
import { moduleFiles, openModules } from './files.js';
import { Findings } from './findings.js';
import { layout } from './layout.js';
import { openingState, saveState } from './state.js';

export const playgroundPage: Page = async (root, params) => {
  const { state, loadError } = await openingState(params);
  const l = layout(root, state, loadError);
  const modules = openModules(state.modules);

  const current = (): PlaygroundState => ({
    modules: files.all(),
    input: inputEd.state.doc.toString(),
    data: dataEd.state.doc.toString(),
    query: l.query.value,
    unknowns: l.unknowns.value,
    explain: l.explain.value as ExplainMode,
    coverage: l.cover.checked,
    ...(l.regoVersion.value === 'v0' ? { regoVersion: 'v0' as const } : {}),
    ...(capabilities() ? { capabilities: capabilities() } : {}),
  });
  let saveTimer: number | undefined;
  const save = () => {
    clearTimeout(saveTimer);
    saveTimer = window.setTimeout(() => saveState(current()), 200);
  };

  const source = createEditor(l.sourceHost, modules[Object.keys(modules)[0]!]!, 'rego', save);
  const inputEd = createEditor(l.inputHost, state.input, 'json', save);
  const dataEd = createEditor(l.dataHost, state.data, 'json', save);
  for (const el of [l.query, l.unknowns, l.explain, l.cover, l.regoVersion]) el.addEventListener('change', save);
  const capabilities = capabilitiesControl(l.capabilities, l.capabilitiesFile, state.capabilities, (_, error) => {
    if (error) renderErrors(l.output, error, [], () => {});
    save();
  });

  const findings = new Findings(source);
  const paint = () => findings.paint(files.active);
  const files = moduleFiles(l, source, modules, { repaint: paint, save });
  const goTo = (loc: Location | undefined) => {
    if (!loc || !files.has(loc.file)) return;
    findings.traced = loc;
    files.select(loc.file);
    paint();
  };
  const p: Playground = { l, source, inputEd, dataEd, files, findings, current, goTo, paint };

  l.evalBtn.addEventListener('click', () => void evaluate(p));
  l.evalSelBtn.addEventListener('click', () => void evaluateSelection(p));
  l.loadDataBtn.addEventListener('click', () => void loadServerData(p));
  l.fmtBtn.addEventListener('click', () => void format(p));
  l.shareBtn.addEventListener('click', () => void share(p));
  l.query.addEventListener('keydown', (e) => e.key === 'Enter' && void evaluate(p));
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void (e.shiftKey ? evaluateSelection(p) : evaluate(p));
    }
  };
  root.addEventListener('keydown', onKey);
  return () => {
    root.removeEventListener('keydown', onKey);
    clearTimeout(saveTimer);
    saveState(current());
    source.destroy();
    inputEd.destroy();
    dataEd.destroy();
  };
};
