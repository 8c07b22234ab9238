// Type predicates (is_number, ..., which return true or false) and type_name.

import { BigNum, RSet, isObject, typeName, type Value } from '../../value/index.js';
import { T } from './decl.js';
import { registerBuiltins } from './registry.js';

const PRED = T.fn([T.any], T.boolean);

registerBuiltins([
  { name: 'is_number', decl: PRED, fn: (a) => typeof a[0] === 'number' || a[0] instanceof BigNum },
  { name: 'is_string', decl: PRED, fn: (a) => typeof a[0] === 'string' },
  { name: 'is_boolean', decl: PRED, fn: (a) => typeof a[0] === 'boolean' },
  { name: 'is_array', decl: PRED, fn: (a) => Array.isArray(a[0]) },
  { name: 'is_set', decl: PRED, fn: (a) => a[0] instanceof RSet },
  { name: 'is_object', decl: PRED, fn: (a) => isObject(a[0]) },
  { name: 'is_null', decl: PRED, fn: (a) => a[0] === null },
  { name: 'type_name', decl: T.fn([T.any], T.string), fn: (a) => typeName(a[0] as Value) },
]);
