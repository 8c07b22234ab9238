// Rego syntax highlighting for CodeMirror 6, as a StreamLanguage (a line tokenizer).

import { StreamLanguage, type StringStream } from '@codemirror/language';

const KEYWORDS = new Set([
  'package', 'import', 'default', 'if', 'else', 'some', 'every', 'in', 'contains', 'not', 'with', 'as',
]);
const ATOMS = new Set(['true', 'false', 'null']);
const SPECIAL = new Set(['input', 'data', 'future', 'rego']);

/** Built-in functions and namespaces: highlighted when called. */
const BUILTINS = new Set([
  'count', 'sum', 'product', 'max', 'min', 'sort', 'all', 'any', 'concat', 'startswith', 'endswith',
  'format_int', 'indexof', 'indexof_n', 'lower', 'upper', 'replace', 'split', 'sprintf', 'substring',
  'trim', 'trim_left', 'trim_right', 'trim_prefix', 'trim_suffix', 'trim_space', 'to_number', 'type_name',
  'is_string', 'is_number', 'is_boolean', 'is_array', 'is_set', 'is_object', 'is_null', 'union', 'intersection',
  'abs', 'ceil', 'floor', 'round', 'print', 'trace', 'walk', 'base64', 'base64url', 'hex', 'json', 'yaml',
  'urlquery', 'regex', 'glob', 'time', 'net', 'http', 'io', 'crypto', 'units', 'uuid', 'strings', 'array',
  'object', 'numbers', 'rand', 'graph', 'semver', 'bits', 'opa', 'cast_array', 'cast_set', 'cast_string',
]);

interface RegoState {
  /** Inside a raw (backtick) string that spans lines. */
  inRaw: boolean;
}

function token(stream: StringStream, state: RegoState): string | null {
  if (state.inRaw) {
    if (stream.skipTo('`')) {
      stream.next();
      state.inRaw = false;
    } else stream.skipToEnd();
    return 'string';
  }
  if (stream.eatSpace()) return null;
  const ch = stream.peek();
  if (ch === '#') {
    stream.skipToEnd();
    return 'comment';
  }
  if (ch === '"') {
    stream.next();
    let escaped = false;
    for (let c = stream.next(); c !== undefined; c = stream.next()) {
      if (c === '"' && !escaped) break;
      escaped = !escaped && c === '\\';
    }
    return 'string';
  }
  if (ch === '`') {
    stream.next();
    if (stream.skipTo('`')) stream.next();
    else {
      stream.skipToEnd();
      state.inRaw = true;
    }
    return 'string';
  }
  if (stream.match(/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/)) return 'number';
  if (stream.match(/^(:=|==|!=|<=|>=|[<>=+\-*/%|&])/)) return 'operator';
  if (stream.match(/^[[\](){}]/)) return 'bracket';
  if (stream.match(/^[.,;:]/)) return 'punctuation';
  const atStart = stream.sol();
  const word = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/) as RegExpMatchArray | null;
  if (word) {
    const w = word[0];
    if (KEYWORDS.has(w)) return 'keyword';
    if (ATOMS.has(w)) return 'atom';
    if (SPECIAL.has(w)) return 'variableName.special';
    // A call: `count(`, `time.now_ns(`.
    const rest = stream.string.slice(stream.pos);
    const call = /^((?:\.[A-Za-z_]\w*)*)\s*\(/.exec(rest);
    if (call && BUILTINS.has(w)) {
      stream.pos += call[1]!.length; // the dotted name, not the parenthesis
      return 'builtin';
    }
    if (atStart) return 'variableName.definition';
    return 'variableName';
  }
  stream.next();
  return null;
}

export const rego = StreamLanguage.define<RegoState>({
  name: 'rego',
  startState: () => ({ inRaw: false }),
  copyState: (s) => ({ ...s }),
  token,
  languageData: { commentTokens: { line: '#' }, closeBrackets: { brackets: ['(', '[', '{', '"', '`'] } },
});
