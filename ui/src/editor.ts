// CodeMirror editors with line marks: coverage (covered / not covered), the traced line,
// and error diagnostics placed on their line.

import { basicSetup } from 'codemirror';
import { EditorState, StateEffect, StateField, type Extension, type Range } from '@codemirror/state';
import { Decoration, EditorView, type DecorationSet } from '@codemirror/view';
import { json } from '@codemirror/lang-json';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { rego } from './rego-language.js';

export interface LineMarks {
  covered?: number[];
  notCovered?: number[];
  /** The line the selected trace event points at. */
  traced?: number;
}

const setMarks = StateEffect.define<LineMarks>();

const covered = Decoration.line({ class: 'cm-covered' });
const notCovered = Decoration.line({ class: 'cm-not-covered' });
const traced = Decoration.line({ class: 'cm-traced' });

function decorations(state: EditorState, marks: LineMarks): DecorationSet {
  const ranges: Range<Decoration>[] = [];
  const add = (row: number, deco: Decoration) => {
    if (row >= 1 && row <= state.doc.lines) ranges.push(deco.range(state.doc.line(row).from));
  };
  for (const r of marks.covered ?? []) add(r, covered);
  for (const r of marks.notCovered ?? []) add(r, notCovered);
  if (marks.traced !== undefined) add(marks.traced, traced);
  return Decoration.set(ranges, true);
}

const marksField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    let next = deco.map(tr.changes);
    for (const e of tr.effects) if (e.is(setMarks)) next = decorations(tr.state, e.value);
    // Edits make the last evaluation's marks stale.
    if (tr.docChanged) next = Decoration.none;
    return next;
  },
  provide: (f) => EditorView.decorations.from(f),
});

const extensionsOf = new WeakMap<EditorView, Extension[]>();

export function createEditor(parent: HTMLElement, doc: string, lang: 'rego' | 'json', onChange?: () => void): EditorView {
  const exts: Extension[] = [basicSetup, lang === 'rego' ? rego : json(), marksField, lintGutter(), EditorView.lineWrapping];
  if (onChange) exts.push(EditorView.updateListener.of((u) => u.docChanged && onChange()));
  const view = new EditorView({ parent, state: EditorState.create({ doc, extensions: exts }) });
  extensionsOf.set(view, exts);
  return view;
}

/** Replace the text as an edit (undoable). */
export function replaceDoc(view: EditorView, text: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

/** Start over with another document (a different file: no shared undo history). */
export function resetDoc(view: EditorView, text: string): void {
  view.setState(EditorState.create({ doc: text, extensions: extensionsOf.get(view) ?? [] }));
}

export function showMarks(view: EditorView, marks: LineMarks): void {
  view.dispatch({ effects: setMarks.of(marks) });
  if (marks.traced !== undefined && marks.traced >= 1 && marks.traced <= view.state.doc.lines) {
    view.dispatch({ effects: EditorView.scrollIntoView(view.state.doc.line(marks.traced).from, { y: 'center' }) });
  }
}

/** Errors at (row, col), 1-based; a missing row marks line 1. */
export function showErrors(view: EditorView, errors: { row?: number; col?: number; message: string }[]): void {
  const doc = view.state.doc;
  const diags: Diagnostic[] = errors.map((e) => {
    const line = doc.line(Math.min(Math.max(e.row ?? 1, 1), doc.lines));
    const from = Math.min(line.from + Math.max((e.col ?? 1) - 1, 0), line.to);
    return { from, to: line.to > from ? line.to : from, severity: 'error', message: e.message };
  });
  view.dispatch(setDiagnostics(view.state, diags));
}
