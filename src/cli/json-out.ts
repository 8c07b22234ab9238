// JSON text for command output: fields in the order OPA writes them (Go struct order),
// with Rego values (sets, exact numbers, non-string keys) written by the value module.

import { toJSONText, type Value } from '../engine/index.js';

/** An object whose keys are written in insertion order; undefined fields are left out. */
export class Ordered {
  constructor(readonly fields: Record<string, unknown>) {}
}

export function ordered(fields: Record<string, unknown>): Ordered {
  return new Ordered(fields);
}

function write(x: unknown, ind: string, cur: string): string {
  if (x instanceof Ordered) {
    const entries = Object.entries(x.fields).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const next = cur + ind;
    const nl = ind ? '\n' : '';
    const parts = entries.map(([k, v]) => `${nl}${next}${JSON.stringify(k)}:${ind ? ' ' : ''}${write(v, ind, next)}`);
    return `{${parts.join(',')}${nl}${cur}}`;
  }
  if (Array.isArray(x) && x.some((e) => e instanceof Ordered)) {
    if (x.length === 0) return '[]';
    const next = cur + ind;
    const nl = ind ? '\n' : '';
    return `[${x.map((e) => `${nl}${next}${write(e, ind, next)}`).join(',')}${nl}${cur}]`;
  }
  const text = toJSONText((x === undefined ? null : x) as Value, ind.length || undefined);
  return ind ? text.replace(/\n/g, '\n' + cur) : text;
}

/** Indented (two spaces, as OPA's encoder) or compact JSON text. */
export function jsonText(x: unknown, indent = 2): string {
  return write(x, ' '.repeat(indent), '');
}
