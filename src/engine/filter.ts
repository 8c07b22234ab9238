// Data filtering targets (/v1/compile/{path} with an Accept header): the residual of a
// filter rule translated to SQL or UCAST by src/partial/filter.

import type { Value } from '../value/index.js';
import { FilterError, parseTarget, translateFilter, type Target } from '../partial/filter/index.js';
import { EngineError } from './errors.js';
import type { PartialQueries } from './partial.js';

/**
 * The target an Accept header asks for; undefined for OPA's plain Rego AST answer
 * (application/json, * / *, or no header). An unknown vnd.opa / vnd.styra type is an error.
 */
export function filterTarget(accept: string | undefined): Target | undefined {
  if (!accept) return undefined;
  const types = accept.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  for (const t of types) {
    const target = parseTarget(t);
    if (target) return target;
  }
  const vendor = types.find((t) => /^application\/vnd\.(opa|styra)\./.test(t));
  if (vendor) throw new EngineError('bad_request', `unsupported data filtering target: ${vendor}`);
  return undefined;
}

/** The media type a target is answered with (OPA 1.9's application/vnd.opa.* names). */
export function targetMediaType(t: Target): string {
  if (t.mediaType) return t.mediaType;
  if (t.kind === 'multi') return 'application/vnd.opa.multitarget+json';
  return t.kind === 'sql' ? `application/vnd.opa.sql.${t.dialect}+json` : `application/vnd.opa.ucast.${t.variant}+json`;
}

export function translateFilterResult(out: PartialQueries, target: Target, options: { targetDialects?: string[]; targetSQLTableMappings?: Value; masks?: Value }): Value {
  try {
    return translateFilter({ queries: out.queries, supportCount: out.support.length }, target, options);
  } catch (e) {
    if (e instanceof FilterError) throw new EngineError('bad_request', 'the filter rule cannot be translated to the target: ' + e.message, e.errors);
    throw e;
  }
}
