// The closure shapes the planner produces. A Step runs the rest of a body for the current
// bindings and returns true to stop (a complete answer is known). Terms compile to a
// generator (enumerates values; may bind iteration vars while its continuation runs),
// an optional direct getter (single-valued terms), and a matcher (unification against a value).

import type { Frame } from '../context.js';
import type { Value } from '../../value/index.js';

export type Step = (fr: Frame) => boolean;
export type K = (v: Value) => boolean;

export interface TermC {
  gen: (fr: Frame, k: K) => boolean;
  get?: (fr: Frame) => Value | undefined;
  match: (fr: Frame, v: Value, k: Step) => boolean;
  /** The value when every var in the term is bound now (for dynamic unification). */
  tryValue: (fr: Frame) => Value | undefined;
  /** Statically: contains vars that may be unbound in value positions (a pattern). */
  pattern: boolean;
  /** Constant value, when the term is a constant. */
  constant?: Value;
  /** The frame slot, when the term is a plain (non-input, non-data) variable. */
  slot?: number;
}

export const STOP: Step = () => true;
