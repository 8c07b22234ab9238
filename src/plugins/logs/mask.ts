// system.log.mask and system.log.drop: policies evaluated with the event as input. The
// mask policy returns JSON pointers to erase ("/input/password") or operations
// ({"op": "upsert", "path": ..., "value": ...}); erased and upserted pointers are listed in
// the event's `erased` and `masked` fields. The drop policy drops the event when true.

import { RSet, isPlainObject, newPlainObject, type PlainObject, type Value } from '../../value/index.js';

/** The narrow view of the engine the decision log plugin needs. */
export interface PolicyEvaluator {
  evaluate(ref: Value[], opts: { input?: Value }): { result?: Value } | Promise<{ result?: Value }>;
  hasRulesAt(ref: Value[]): boolean;
}

/** A JSON pointer's segments, with RFC 6901 escapes (~1 = "/", ~0 = "~") undone. */
export function pathRef(p: string): string[] {
  return p
    .split('/')
    .filter((s) => s !== '')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

interface MaskOp {
  op: 'remove' | 'upsert';
  path: string[];
  text: string;
  value?: Value;
}

/** Mask targets must sit under one of these event fields. */
const MASKABLE = new Set(['input', 'result', 'nd_builtin_cache']);

function parseOps(result: Value | undefined): MaskOp[] {
  const items: Value[] = result instanceof RSet ? [...result.values()] : Array.isArray(result) ? result : [];
  const ops: MaskOp[] = [];
  for (const it of items) {
    if (typeof it === 'string') {
      const path = pathRef(it);
      if (path.length && MASKABLE.has(path[0]!)) ops.push({ op: 'remove', path, text: it });
    } else if (isPlainObject(it)) {
      const op = it['op'];
      const p = it['path'];
      if (typeof p !== 'string' || (op !== 'remove' && op !== 'upsert')) continue;
      const path = pathRef(p);
      if (!path.length || !MASKABLE.has(path[0]!)) continue;
      ops.push({ op, path, text: p, value: it['value'] });
    }
  }
  return ops;
}

/** Copy-on-write update of `root` at `path`; returns undefined when the path cannot be reached. */
function update(root: Value, path: string[], op: MaskOp): Value | undefined {
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const i = Number(head);
    if (!Number.isInteger(i) || i < 0 || i >= root.length) return undefined;
    if (!rest.length) {
      if (op.op === 'remove') return [...root.slice(0, i), ...root.slice(i + 1)];
      const out = root.slice();
      out[i] = op.value ?? null;
      return out;
    }
    const child = update(root[i]!, rest, op);
    if (child === undefined) return undefined;
    const out = root.slice();
    out[i] = child;
    return out;
  }
  if (!isPlainObject(root)) return undefined;
  const has = Object.hasOwn(root, head!);
  const copy = (): PlainObject => Object.assign(newPlainObject(), root);
  if (!rest.length) {
    if (op.op === 'remove') {
      if (!has) return undefined;
      const out = copy();
      delete out[head!];
      return out;
    }
    const out = copy();
    out[head!] = op.value ?? null;
    return out;
  }
  if (!has) {
    // Like OPA's mkdirp: an upsert creates the missing objects on its way; a remove has nothing to do.
    if (op.op === 'remove') return undefined;
    const child = update(newPlainObject(), rest, op);
    if (child === undefined) return undefined;
    const out = copy();
    out[head!] = child;
    return out;
  }
  const child = update(root[head!]!, rest, op);
  if (child === undefined) return undefined;
  const out = copy();
  out[head!] = child;
  return out;
}

/** Applies mask operations; returns the masked event (the original is not changed). */
export function applyMask(event: PlainObject, result: Value | undefined): PlainObject {
  const ops = parseOps(result);
  if (!ops.length) return event;
  let e = Object.assign(newPlainObject(), event);
  const erased: string[] = [];
  const masked: string[] = [];
  for (const op of ops) {
    const field = op.path[0]!;
    if (!Object.hasOwn(e, field)) continue;
    if (op.path.length === 1) {
      if (op.op === 'remove') delete e[field];
      else e[field] = op.value ?? null;
    } else {
      const next = update(e[field]!, op.path.slice(1), op);
      if (next === undefined) continue;
      e = Object.assign(newPlainObject(), e, { [field]: next });
    }
    (op.op === 'remove' ? erased : masked).push(op.text);
  }
  if (erased.length) e['erased'] = erased;
  if (masked.length) e['masked'] = masked;
  return e;
}

/** Runs the drop policy, then the mask policy (refs as pathRef gives them). Undefined means "dropped". */
export async function filterEvent(engine: PolicyEvaluator | undefined, event: PlainObject, maskRef: string[], dropRef: string[]): Promise<PlainObject | undefined> {
  if (!engine) return event;
  if (engine.hasRulesAt(dropRef)) {
    const r = await engine.evaluate(dropRef, { input: event });
    if (r.result === true) return undefined;
  }
  if (engine.hasRulesAt(maskRef)) {
    const r = await engine.evaluate(maskRef, { input: event });
    return applyMask(event, r.result);
  }
  return event;
}
