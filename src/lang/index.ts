// The Rego language front end: lexer, parser, AST and its OPA-shaped JSON form.
export * from './ast.js';
export { RegoParseError, formatErrors, PARSE_ERROR } from './errors.js';
export { parseModule, parseQuery, parseTerm, parseRef, type ParseOptions } from './module.js';
export { moduleToJSON, bodyToJSON, termToJSON, type JSONOptions } from './json-ast.js';
export * from './format/index.js';
export { IDENTIFIER, refText } from './ref-text.js';
