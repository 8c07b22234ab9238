// The playground's elements: the toolbar (query, unknowns, explain, coverage, Rego version,
// capabilities, buttons),
// the module tabs and source editor with its trace beside, and input, data and output.

import { clear, h } from '../../dom.js';
import type { PlaygroundState } from '../../share.js';

export interface Layout {
  query: HTMLInputElement;
  unknowns: HTMLInputElement;
  explain: HTMLSelectElement;
  cover: HTMLInputElement;
  regoVersion: HTMLSelectElement;
  capabilities: HTMLSelectElement;
  capabilitiesFile: HTMLInputElement;
  evalBtn: HTMLButtonElement;
  evalSelBtn: HTMLButtonElement;
  loadDataBtn: HTMLButtonElement;
  fmtBtn: HTMLButtonElement;
  shareBtn: HTMLButtonElement;
  shareOut: HTMLInputElement;
  tabs: HTMLDivElement;
  fileName: HTMLInputElement;
  sourceHost: HTMLDivElement;
  trace: HTMLDivElement;
  inputHost: HTMLDivElement;
  dataHost: HTMLDivElement;
  output: HTMLDivElement;
}

/** Builds the page into root, the controls set from the state. */
export function layout(root: HTMLElement, state: PlaygroundState, loadError: string): Layout {
  const l: Layout = {
    query: h('input.query', { type: 'text', value: state.query, 'aria-label': 'query', placeholder: 'data.authz.allow', spellcheck: 'false' }),
    unknowns: h('input.unknowns', { type: 'text', value: state.unknowns, 'aria-label': 'unknowns', placeholder: 'unknowns, e.g. input.user', spellcheck: 'false' }),
    explain: h('select.explain', { 'aria-label': 'explain' }, ...(['off', 'notes', 'fails', 'full'] as const).map((m) => h('option', { value: m, selected: m === state.explain }, `explain: ${m}`))),
    cover: h('input.coverage', { type: 'checkbox', checked: state.coverage, 'aria-label': 'coverage' }),
    regoVersion: h('select.rego-version', { 'aria-label': 'Rego version' }, ...(['v1', 'v0'] as const).map((v) => h('option', { value: v, selected: v === (state.regoVersion ?? 'v1') }, `Rego ${v}`))),
    capabilities: h('select.capabilities', { 'aria-label': 'capabilities' }),
    capabilitiesFile: h('input.capabilities-file', { type: 'file', accept: '.json,application/json', hidden: true, 'aria-label': 'capabilities file' }),
    evalBtn: h('button.primary.eval', { type: 'button', title: 'Ctrl+Enter' }, 'Evaluate'),
    evalSelBtn: h('button.eval-selection', { type: 'button', title: 'the selected text, or the rule under the cursor, in its module\'s package (Ctrl+Shift+Enter)' }, 'Evaluate selection'),
    loadDataBtn: h('button.load-data', { type: 'button', title: "replace the Data panel with the server's data" }, 'Load server data'),
    fmtBtn: h('button.fmt', { type: 'button' }, 'Format'),
    shareBtn: h('button.share', { type: 'button' }, 'Share'),
    shareOut: h('input.share-url', { type: 'text', readonly: true, 'aria-label': 'share link', hidden: true }),
    tabs: h('div.tabs'),
    fileName: h('input.filename', { type: 'text', 'aria-label': 'file name', spellcheck: 'false' }),
    sourceHost: h('div.editor.source'),
    trace: h('div.trace', { hidden: true }),
    inputHost: h('div.editor.input'),
    dataHost: h('div.editor.data'),
    output: h('div.output', {}, h('p.muted', {}, 'Evaluate to see results.')),
  };
  clear(
    root,
    h('div.page.playground', {},
      loadError ? h('div.banner.error', {}, loadError) : null,
      state.note ? h('div.banner.note', {}, state.note) : null,
      state.warning ? h('div.banner.warning', {}, state.warning) : null,
      h('div.toolbar', {}, l.query, l.unknowns, l.explain, h('label.check', {}, l.cover, 'coverage'), l.regoVersion, l.capabilities, l.capabilitiesFile, l.evalBtn, l.evalSelBtn, l.fmtBtn, l.shareBtn, l.shareOut),
      h('div.pg-grid', {},
        h('section.panel.modules', {}, h('div.panel-head', {}, l.tabs, l.fileName), h('div.source-wrap', {}, l.sourceHost, l.trace)),
        h('section.side', {},
          h('div.panel', {}, h('div.panel-head', {}, h('h3', {}, 'Input')), l.inputHost),
          h('div.panel', {}, h('div.panel-head', {}, h('h3', {}, 'Data'), l.loadDataBtn), l.dataHost),
          h('div.panel', {}, h('div.panel-head', {}, h('h3', {}, 'Output')), l.output),
        ),
      ),
    ),
  );
  return l;
}
