// Data filtering targets (/v1/compile/{path} with an Accept header): the residual of a
// filter rule translated to SQL or UCAST by src/partial/filter.

import type { Value } from '../value/index.js';
import { EngineError } from './errors.js';
import type { PartialQueries } from './partial.js';

/** The target an Accept header asks for; undefined for OPA's plain Rego AST answer. */
export function filterTarget(accept: string | undefined): string | undefined {
  if (!accept) return undefined;
  const types = accept.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  const special = types.find((t) => /^application\/vnd\.(opa|styra)\./.test(t));
  return special;
}

export function translateFilterResult(_out: PartialQueries, target: string, _options: Record<string, unknown>): Value {
  throw new EngineError('unimplemented', `data filtering target ${target} is not available yet`);
}
