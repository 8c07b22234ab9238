// Rego values. JSON values are plain JavaScript values, so a document parsed with
// JSON.parse is evaluated without conversion:
//   null, boolean, number (a double), string, Value[] (array), plain object with
//   string keys (a Rego object whose keys are all strings).
// Three small classes cover the rest:
//   BigNum  - a number a double cannot hold exactly (12345678901234567890, 1e400, 0.1234567890123456789)
//   RSet    - a Rego set
//   RObject - a Rego object with at least one non-string key
// Invariants (relied on by equality and hashing):
//   - a number that a double holds exactly is always a `number`, never a BigNum;
//   - an object whose keys are all strings is always a plain object, never an RObject;
//   - values are immutable once built.

import type { BigNum } from './number.js';
import type { RSet } from './set.js';
import type { RObject } from './object.js';

export type Value = null | boolean | number | BigNum | string | Value[] | PlainObject | RSet | RObject;

export interface PlainObject {
  [key: string]: Value;
}

export type TypeName = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' | 'set';
