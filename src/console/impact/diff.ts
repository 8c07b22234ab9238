// A JSON-pointer diff of two results (plain JSON): objects key by key, arrays index by
// index (extra elements added or removed at the end), anything else replaced whole. An
// undefined result on one side is an add or remove of the whole document (path "").

export interface DiffOp {
  op: 'add' | 'remove' | 'replace';
  /** RFC 6901 JSON pointer into the result ("" is the whole result). */
  path: string;
  old?: unknown;
  new?: unknown;
}

function escape(seg: string): string {
  return seg.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function diffJSON(before: unknown, after: unknown, path = '', out: DiffOp[] = []): DiffOp[] {
  if (before === undefined && after === undefined) return out;
  if (before === undefined) {
    out.push({ op: 'add', path, new: after });
    return out;
  }
  if (after === undefined) {
    out.push({ op: 'remove', path, old: before });
    return out;
  }
  if (isObj(before) && isObj(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const k of keys) {
      const b = Object.hasOwn(before, k) ? before[k] : undefined;
      const a = Object.hasOwn(after, k) ? after[k] : undefined;
      diffJSON(b, a, `${path}/${escape(k)}`, out);
    }
    return out;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n; i++) diffJSON(i < before.length ? before[i] : undefined, i < after.length ? after[i] : undefined, `${path}/${i}`, out);
    return out;
  }
  if (!same(before, after)) out.push({ op: 'replace', path, old: before, new: after });
  return out;
}
