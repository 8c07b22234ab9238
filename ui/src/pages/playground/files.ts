// The playground's modules: one editor showing the active file, tabs to switch, add and
// remove files, and the file name field that renames the active one.

import type { EditorView } from '@codemirror/view';
import { clear, h } from '../../dom.js';
import { resetDoc } from '../../editor.js';
import type { Layout } from './layout.js';

export interface ModuleFiles {
  /** The file in the editor. */
  readonly active: string;
  /** Every module, the editor's text written back first. */
  all(): Record<string, string>;
  has(file: string): boolean;
  select(file: string): void;
}

/** The modules of a state; an empty state gets one empty policy.rego. */
export function openModules(modules: Record<string, string>): Record<string, string> {
  const out = { ...modules };
  if (!Object.keys(out).length) out['policy.rego'] = '';
  return out;
}

/** Tabs over `modules` (edited in place) in `source`, which shows the first file; `repaint` after a switch, `save` after a change. */
export function moduleFiles(l: Pick<Layout, 'tabs' | 'fileName'>, source: EditorView, modules: Record<string, string>, hooks: { repaint(): void; save(): void }): ModuleFiles {
  let active = Object.keys(modules)[0]!;
  const { tabs, fileName } = l;

  const render = () => {
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
    render();
    hooks.repaint();
  };
  const add = () => {
    let n = Object.keys(modules).length + 1;
    while (modules[`module${n}.rego`] !== undefined) n++;
    modules[active] = source.state.doc.toString();
    modules[`module${n}.rego`] = `package module${n}\n`;
    select(`module${n}.rego`);
    hooks.save();
  };
  const remove = (f: string) => {
    modules[active] = source.state.doc.toString();
    delete modules[f];
    if (f === active) {
      active = Object.keys(modules)[0]!;
      resetDoc(source, modules[active]!);
    }
    render();
    hooks.repaint();
    hooks.save();
  };
  fileName.addEventListener('change', () => {
    const name = fileName.value.trim();
    if (!name || name === active || modules[name] !== undefined) return void (fileName.value = active);
    modules[name] = source.state.doc.toString();
    delete modules[active];
    active = name;
    render();
    hooks.save();
  });
  render();

  return {
    get active() {
      return active;
    },
    all() {
      modules[active] = source.state.doc.toString();
      return { ...modules };
    },
    has: (file) => modules[file] !== undefined,
    select,
  };
}
