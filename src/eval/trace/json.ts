// The JSON form of trace events the HTTP API returns for `explain` without `pretty`
// (OPA's TraceEventV1): lower-case op, query and parent ids, the node's type and AST,
// local bindings as key/value terms, location and message.

import { bodyToJSON, exprToJSON, ruleToJSON, termToJSON } from '../../lang/json-ast.js';
import type { Term } from '../../lang/ast.js';
import { toJS, type Value } from '../../value/index.js';
import type { TraceEvent, TraceNode } from './events.js';

const AST_OPTS = { includeLocation: true };

function nodeJSON(n: TraceNode): unknown {
  if (n.type === 'expr') return exprToJSON(n.expr, AST_OPTS);
  if (n.type === 'rule') return ruleToJSON(n.rule, AST_OPTS);
  return bodyToJSON(n.body, AST_OPTS);
}

/** A value as an AST term ({type, value}), as OPA marshals bindings. */
export function valueTerm(v: Value): unknown {
  const js = toJS(v);
  return termOf(js);
}

function termOf(js: unknown): unknown {
  if (js === null) return { type: 'null' };
  if (typeof js === 'boolean') return { type: 'boolean', value: js };
  if (typeof js === 'number' || typeof js === 'bigint') return { type: 'number', value: Number(js) };
  if (typeof js === 'string') return { type: 'string', value: js };
  if (Array.isArray(js)) return { type: 'array', value: js.map(termOf) };
  if (js instanceof Set) return { type: 'set', value: [...js].map(termOf) };
  if (js instanceof Map) return { type: 'object', value: [...js].map(([k, x]) => [termOf(k), termOf(x)]) };
  if (typeof js === 'object') return { type: 'object', value: Object.entries(js as Record<string, unknown>).map(([k, x]) => [termOf(k), termOf(x)]) };
  return { type: 'string', value: String(js) };
}

function varTerm(name: string): unknown {
  return termToJSON({ type: 'var', value: name } as Term);
}

export function eventJSON(e: TraceEvent): Record<string, unknown> {
  const o: Record<string, unknown> = {
    op: e.op.toLowerCase(),
    query_id: e.queryId,
    parent_id: e.parentId,
    type: e.node?.type ?? '',
    node: e.node ? nodeJSON(e.node) : null,
    locals: (e.locals ?? []).map(([k, v]) => ({ key: varTerm(k), value: valueTerm(v) })),
  };
  if (e.location) o['location'] = { file: e.location.file, row: e.location.row, col: e.location.col };
  if (e.message) o['message'] = e.message;
  return o;
}

export function eventsJSON(events: readonly TraceEvent[]): Record<string, unknown>[] {
  return events.map(eventJSON);
}
