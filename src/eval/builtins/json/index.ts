// JSON built-ins: marshal (Go's encoding/json output: sorted keys, HTML-safe escapes),
// marshal_with_options, unmarshal (exact numbers), is_valid, filter, remove, patch.

import { RObject, isPlainObject, objectEntries, toJSONText, typeName, type Value } from '../../../value/index.js';
import { JSONParseError, parseJSON } from '../../../value/index.js';
import { builtinError, operandError } from '../errors.js';
import { PatchError, applyPatch, jsonFilter, jsonRemove, pathsOperand, pathsToTree } from './patch.js';
import { registerBuiltins, type BuiltinImpl, type BuiltinFn } from '../registry.js';
import { goJSONDecodeError } from './go-errors.js';
import { str, typeError } from '../args.js';
import { isValid } from '../is-valid.js';

/** Rewrites JSON text the way Go's encoder writes strings: <, >, &, U+2028/9 as \u escapes; \b and \f as \u00XX. */
function goEscapes(json: string): string {
  return json.replace(/\\(?:u[0-9a-fA-F]{4}|.)|[<>&\u2028\u2029]/g, (m) => {
    switch (m) {
      case '<':
        return '\\u003c';
      case '>':
        return '\\u003e';
      case '&':
        return '\\u0026';
      case '\u2028':
        return '\\u2028';
      case '\u2029':
        return '\\u2029';
      case '\\b':
        return '\\u0008';
      case '\\f':
        return '\\u000c';
      default:
        return m;
    }
  });
}

/** json.Marshal of the value. */
export function goMarshal(v: Value): string {
  return goEscapes(toJSONText(v));
}

/** Go's json.Indent over compact JSON: `prefix` starts every line after the first. */
function indentJSON(compact: string, prefix: string, indent: string): string {
  let out = '';
  let depth = 0;
  let inStr = false;
  const nl = () => '\n' + prefix + indent.repeat(depth);
  for (let i = 0; i < compact.length; i++) {
    const c = compact[i]!;
    if (inStr) {
      out += c;
      if (c === '\\') out += compact[++i]!;
      else if (c === '"') inStr = false;
      continue;
    }
    switch (c) {
      case '"':
        inStr = true;
        out += c;
        break;
      case '{':
      case '[':
        if (compact[i + 1] === (c === '{' ? '}' : ']')) {
          out += c + compact[++i]!;
          break;
        }
        depth++;
        out += c + nl();
        break;
      case '}':
      case ']':
        depth--;
        out += nl() + c;
        break;
      case ',':
        out += ',' + nl();
        break;
      case ':':
        out += ': ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

function marshalWithOptions(args: Value[]): Value {
  const v = args[0]!;
  const opts = args[1]!;
  if (!isPlainObject(opts) && !(opts instanceof RObject)) throw operandError(2, 'object', opts);
  let prefix = '';
  let indent = '\t';
  let pretty: boolean | undefined;
  let wantsPretty = false;
  for (const [k, x] of objectEntries(opts)) {
    switch (k) {
      case 'prefix':
        if (typeof x !== 'string') throw typeError(`operand 2 prefix must be a string, got ${typeName(x)}`);
        prefix = x;
        wantsPretty = true;
        break;
      case 'indent':
        if (typeof x !== 'string') throw typeError(`operand 2 indent must be a string, got ${typeName(x)}`);
        indent = x;
        wantsPretty = true;
        break;
      case 'pretty':
        if (typeof x !== 'boolean') throw typeError(`operand 2 pretty must be a boolean, got ${typeName(x)}`);
        pretty = x;
        break;
      default:
        throw typeError(`operand 2 object contained unknown key ${JSON.stringify(k)}`);
    }
  }
  const compact = goMarshal(v);
  if (pretty === false || (pretty === undefined && !wantsPretty)) return compact;
  return prefix + indentJSON(compact, prefix, indent);
}

/** Parses JSON exactly; errors carry the parser's reason. */
export function unmarshalJSON(s: string): Value {
  try {
    return parseJSON(s);
  } catch (e) {
    if (e instanceof JSONParseError || e instanceof SyntaxError) throw builtinError(goJSONError(s, (e as Error).message));
    throw e;
  }
}

/** Go's encoding/json message for the common failures (bad first character, truncated input). */
function goJSONError(s: string, fallback: string): string {
  // Go's wording where our scanner agrees that the text is malformed.
  return goJSONDecodeError(s) ?? fallback;
}

const objectFirst = (f: (o: Value, paths: Value) => Value | undefined): BuiltinFn => (args) => {
  const o = args[0]!;
  if (!isPlainObject(o) && !(o instanceof RObject)) throw operandError(1, 'object', o);
  return f(o, args[1]!);
};

const defs: BuiltinImpl[] = [
  { name: 'json.marshal', fn: (a) => goMarshal(a[0]!) },
  {
    name: 'json.marshal_with_options',
    fn: marshalWithOptions,
  },
  { name: 'json.unmarshal', fn: (a) => unmarshalJSON(str(a, 0)) },
  {
    name: 'json.is_valid',
    fn: isValid((text) => parseJSON(text)),
  },
  {
    name: 'json.filter',
    fn: objectFirst((o, p) => jsonFilter(o, pathsToTree(pathsOperand(p))) ?? null),
  },
  {
    name: 'json.remove',
    fn: objectFirst((o, p) => jsonRemove(o, pathsToTree(pathsOperand(p)))),
  },
  {
    name: 'json.patch',
    fn: (a) => {
      const ops = a[1]!;
      if (!Array.isArray(ops)) throw operandError(2, 'array', ops);
      try {
        return applyPatch(a[0]!, ops);
      } catch (e) {
        // A patch that cannot be applied is a built-in error in OPA: undefined without
        // strict-builtin-errors, an eval_builtin_error with them.
        if (e instanceof PatchError) throw builtinError(e.message);
        throw e;
      }
    },
  },
];

registerBuiltins(defs);
