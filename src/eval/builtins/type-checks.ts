// Type predicates (is_number, ..., which return true or false) and type_name.

import { BigNum, RSet, isObject, typeName, type Value } from '../../value/index.js';
import { registerBuiltins } from './registry.js';

registerBuiltins([
  { name: 'is_number', fn: (a) => typeof a[0] === 'number' || a[0] instanceof BigNum },
  { name: 'is_string', fn: (a) => typeof a[0] === 'string' },
  { name: 'is_boolean', fn: (a) => typeof a[0] === 'boolean' },
  { name: 'is_array', fn: (a) => Array.isArray(a[0]) },
  { name: 'is_set', fn: (a) => a[0] instanceof RSet },
  { name: 'is_object', fn: (a) => isObject(a[0]) },
  { name: 'is_null', fn: (a) => a[0] === null },
  { name: 'type_name', fn: (a) => typeName(a[0] as Value) },
]);
