// A playground request (an EvalRequest, wire.ts) checked against the playground's limits
// (the body itself is bounded by the server's): a wrong field is a 400 in OPA's shape.

import { isPlainObject, type PlainObject, type Value } from '../../value/index.js';
import { badRequest } from '../../server/errors.js';
import { EXPLAIN_MODES, REGO_VERSIONS, type ExplainMode, type RegoVersionName } from './wire.js';

/** Limits of one playground request (the body itself is bounded by the server's limits). */
export const PLAYGROUND_LIMITS = {
  modules: 100,
  /** Characters of one module (and of a text to format). */
  moduleChars: 1024 * 1024,
  fileNameChars: 256,
  queryChars: 64 * 1024,
  unknowns: 100,
  /** Built-in names a capabilities document may list. */
  capabilities: 10_000,
  /** print() output kept of one evaluation: lines, and characters in all. */
  printLines: 1000,
  printChars: 256 * 1024,
  /** Evaluation (and partial evaluation) time budget. */
  timeoutMs: 5000,
};

/** An EvalRequest as checked: modules in the order given, defaults filled in, the time budget. */
export interface CheckedRequest {
  modules: [string, string][];
  data?: Value;
  input?: Value;
  query: string;
  explain: ExplainMode;
  coverage: boolean;
  unknowns?: string[];
  regoVersion: RegoVersionName;
  /** The built-ins calls may name; undefined: all of them. */
  allowedBuiltins?: Set<string>;
  /** The module whose package and imports the query is read in. */
  inModule?: string;
  timeoutMs: number;
}

function checkCapabilities(c: Value | undefined): Set<string> | undefined {
  if (c === undefined) return undefined;
  const list = isPlainObject(c) ? (c as PlainObject)['builtins'] : undefined;
  if (!Array.isArray(list)) throw badRequest('"capabilities" must be a capabilities document: {"builtins": [{"name": ...}, ...]}');
  if (list.length > PLAYGROUND_LIMITS.capabilities) throw badRequest(`too many built-ins in "capabilities": at most ${PLAYGROUND_LIMITS.capabilities}`);
  const names = new Set<string>();
  for (const b of list) {
    const name = isPlainObject(b) ? (b as PlainObject)['name'] : undefined;
    if (typeof name !== 'string') throw badRequest('every entry of "capabilities.builtins" needs a "name"');
    names.add(name);
  }
  return names;
}

export function checkRequest(body: Value | undefined, timeoutMs: number): CheckedRequest {
  if (!isPlainObject(body)) throw badRequest('request body must be a JSON object');
  const b = body as PlainObject;
  const mods = b['modules'];
  if (!isPlainObject(mods)) throw badRequest('"modules" must be an object of file name to Rego text');
  const modules = Object.entries(mods as PlainObject);
  if (modules.length > PLAYGROUND_LIMITS.modules) throw badRequest(`too many modules: at most ${PLAYGROUND_LIMITS.modules}`);
  for (const [file, text] of modules) {
    if (file === '' || file.length > PLAYGROUND_LIMITS.fileNameChars) throw badRequest(`module file names must be 1 to ${PLAYGROUND_LIMITS.fileNameChars} characters`);
    if (typeof text !== 'string') throw badRequest(`module ${JSON.stringify(file)} must be a string`);
    if (text.length > PLAYGROUND_LIMITS.moduleChars) throw badRequest(`module ${JSON.stringify(file)} is too large: at most ${PLAYGROUND_LIMITS.moduleChars} characters`);
  }
  const query = b['query'];
  if (typeof query !== 'string' || query.trim() === '') throw badRequest('"query" must be a non-empty string');
  if (query.length > PLAYGROUND_LIMITS.queryChars) throw badRequest(`"query" is too large: at most ${PLAYGROUND_LIMITS.queryChars} characters`);
  const data = b['data'];
  if (data !== undefined && !isPlainObject(data)) throw badRequest('"data" must be an object');
  const explain = b['explain'] ?? 'off';
  if (typeof explain !== 'string' || !(EXPLAIN_MODES as readonly string[]).includes(explain)) throw badRequest(`"explain" must be one of ${EXPLAIN_MODES.join(', ')}`);
  const coverage = b['coverage'] ?? false;
  if (typeof coverage !== 'boolean') throw badRequest('"coverage" must be a boolean');
  const u = b['unknowns'];
  let unknowns: string[] | undefined;
  if (u !== undefined) {
    if (!Array.isArray(u) || !u.every((x) => typeof x === 'string')) throw badRequest('"unknowns" must be an array of strings');
    if (u.length > PLAYGROUND_LIMITS.unknowns) throw badRequest(`too many unknowns: at most ${PLAYGROUND_LIMITS.unknowns}`);
    unknowns = u as string[];
  }
  const regoVersion = b['rego_version'] ?? 'v1';
  if (typeof regoVersion !== 'string' || !(REGO_VERSIONS as readonly string[]).includes(regoVersion)) throw badRequest(`"rego_version" must be one of ${REGO_VERSIONS.join(', ')}`);
  const inModule = b['in_module'];
  if (inModule !== undefined && (typeof inModule !== 'string' || !modules.some(([f]) => f === inModule))) throw badRequest('"in_module" must name one of the modules');
  return {
    modules: modules as [string, string][],
    data,
    input: b['input'],
    query,
    explain: explain as ExplainMode,
    coverage,
    unknowns,
    regoVersion: regoVersion as RegoVersionName,
    allowedBuiltins: checkCapabilities(b['capabilities']),
    inModule: inModule as string | undefined,
    timeoutMs,
  };
}

