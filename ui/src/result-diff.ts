// A result diff in words: the JSON pointer of each change read as a reference into the
// result (`result.reasons[1]`, `result` for the whole of it) and what happened to it.

import type { DiffOp } from '../../src/console/impact/diff.js';

/** "/reasons/1" -> result.reasons[1]; "" -> result. */
export function pointerRef(pointer: string): string {
  if (pointer === '') return 'result';
  return 'result' + pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? `[${s}]` : /^[A-Za-z_]\w*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`))
    .join('');
}

const value = (v: unknown) => (v === undefined ? 'undefined' : JSON.stringify(v));

/** One change as a sentence's parts: the reference, the verb, and the old and new values (those that apply). */
export function describeOp(d: DiffOp): { ref: string; verb: string; old?: string; new?: string } {
  const ref = pointerRef(d.path);
  if (d.op === 'add') return { ref, verb: d.path === '' ? 'was undefined, now' : 'added:', new: value(d.new) };
  if (d.op === 'remove') return { ref, verb: d.path === '' ? 'is now undefined, was' : 'removed, was', old: value(d.old) };
  return { ref, verb: 'changed from', old: value(d.old), new: value(d.new) };
}
