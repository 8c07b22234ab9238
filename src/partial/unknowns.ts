// Unknowns: the refs (`input`, `input.fruits`, `data.users`) whose values partial evaluation
// does not know. Each is a constant path from a root; a ref overlaps an unknown when one of
// the two paths is a prefix of the other.

import { parseTerm, type Term } from '../lang/index.js';

export type Path = readonly string[];

export class UnknownError extends Error {}

/** Parses `input.x`, `data.a["b"]` into paths; only constant string segments are allowed. */
export function parseUnknowns(refs: readonly string[]): Path[] {
  return refs.map((text) => {
    let ref: Term;
    try {
      ref = parseTerm(text.trim());
    } catch {
      throw new UnknownError(`invalid unknown: ${JSON.stringify(text)}`);
    }
    const segs = ref.type === 'ref' ? ref.value : ref.type === 'var' ? [ref] : [];
    const head = segs[0];
    if (!head || head.type !== 'var' || (head.value !== 'input' && head.value !== 'data'))
      throw new UnknownError(`invalid unknown: ${JSON.stringify(text)} (must start with input or data)`);
    const path = [head.value];
    for (const s of segs.slice(1)) {
      if (s.type !== 'string') throw new UnknownError(`invalid unknown: ${JSON.stringify(text)} (segments must be constant strings)`);
      path.push(s.value);
    }
    return path;
  });
}

export class Unknowns {
  constructor(readonly paths: Path[]) {}

  /** Whether an unknown is a prefix of (or equal to) `path`: everything below is unknown. */
  covers(path: Path): boolean {
    return this.paths.some((u) => u.length <= path.length && u.every((s, i) => s === path[i]));
  }

  /** Whether an unknown lies at or below `path` (so reading `path` whole touches it). */
  below(path: Path): boolean {
    return this.paths.some((u) => u.length >= path.length && path.every((s, i) => s === u[i]));
  }

  overlaps(path: Path): boolean {
    return this.covers(path) || this.below(path);
  }
}
