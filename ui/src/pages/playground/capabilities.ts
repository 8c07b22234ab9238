// The capabilities control: all of Regolith's built-ins, or those an OPA capabilities file
// lists (`opa capabilities --version v0.60.0 > caps.json`, or `regolith capabilities
// --current` edited). The file is read here; only the built-in names are kept and sent.

import { clear, h } from '../../dom.js';
import type { PlaygroundState } from '../../share.js';

export type Capabilities = PlaygroundState['capabilities'];

/** The built-in names of a capabilities document, or an error saying what is wrong with it. */
export function readCapabilities(text: string): string[] {
  const doc = JSON.parse(text) as { builtins?: unknown } | null;
  const list = doc?.builtins;
  if (!Array.isArray(list)) throw new Error('a capabilities file has a "builtins" array');
  return list.map((b) => {
    const name = (b as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') throw new Error('every entry of "builtins" needs a "name"');
    return name;
  });
}

/**
 * Wires the select over `current`: "all built-ins", the loaded file, and "load a file…",
 * which opens the file chooser. `changed` gets the new choice (or an error to show).
 */
export function capabilitiesControl(select: HTMLSelectElement, file: HTMLInputElement, current: Capabilities, changed: (c: Capabilities, error?: string) => void): () => Capabilities {
  let caps = current;
  const render = () => {
    clear(
      select,
      h('option', { value: 'all', selected: !caps }, 'capabilities: all built-ins'),
      caps ? h('option', { value: 'file', selected: true }, `capabilities: ${caps.file} (${caps.builtins.length} built-ins)`) : null,
      h('option', { value: 'load' }, 'capabilities: load a file…'),
    );
  };
  select.addEventListener('change', () => {
    if (select.value === 'all') {
      caps = undefined;
      changed(caps);
    } else if (select.value === 'load') file.click();
    render();
  });
  file.addEventListener('change', async () => {
    const f = file.files?.[0];
    file.value = '';
    if (!f) return;
    try {
      caps = { file: f.name, builtins: readCapabilities(await f.text()) };
      changed(caps);
    } catch (e) {
      changed(caps, `${f.name} is not a capabilities file: ${(e as Error).message}`);
    }
    render();
  });
  render();
  return () => caps;
}
