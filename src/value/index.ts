// The value model every other module imports. See types.ts for the representation.
export type { Value, PlainObject, TypeName } from './types.js';
export {
  BigNum,
  type RNumber,
  parseNumber,
  makeNumber,
  isNumber,
  compareNumbers,
  numberText,
  toDecimal,
  toSafeInteger,
  toBigInt,
  fromBigInt,
  decimalText,
  parseDecimal,
} from './number.js';
export { RSet } from './set.js';
export {
  RObject,
  newPlainObject,
  isPlainObject,
  isObject,
  sortedKeys,
  objectGet,
  objectSize,
  objectEntries,
  makeObject,
} from './object.js';
export { compare, equal, typeName, compareStrings } from './compare.js';
export { hashValue, hashString } from './hash.js';
export { toJS, toJSONText, stringText, isJSON, sortKeysDeep } from './json-write.js';
export { parseJSON, parseJSONText, JSONParseError, DEFAULT_MAX_DEPTH, type JSONTree, type ParseOptions as JSONParseOptions } from './json-read.js';
export { inputText, inputTextSpan } from './json-input-text.js';
export { parseJSONSparse, readNeeded, newNeeds, mergeNeeds, type Needs as JSONNeeds } from './json-sparse.js';
export { toRegoString } from './print.js';
export { pathReader, type PathReader } from './path-reader.js';
export { nextValueEpoch } from './epoch.js';
