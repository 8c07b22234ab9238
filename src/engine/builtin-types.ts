// The type language of custom built-in declarations: the text `regolith` prints in type
// errors (`string`, `array[number]`, `set[any]`, `object[string: any]`,
// `object<name: string>`, `array<string, number>`, `any<string, null>`), read into the
// TypeDecl objects of OPA's capabilities JSON that the compiler checks calls against.
// A TypeDecl object itself is accepted too.

import type { TypeDecl } from '../compiler/builtins/index.js';

/** A type as text (`"array[string]"`) or as a capabilities JSON object (`{type: "string"}`). */
export type TypeSpec = string | TypeDecl;

export class TypeSpecError extends Error {}

const SCALARS = new Set(['any', 'null', 'boolean', 'number', 'string']);
const KINDS = new Set([...SCALARS, 'array', 'set', 'object']);
const WANT = 'any, null, boolean, number, string, array[T], array<T, ...>, set[T], object[K: V], object<key: T, ...>, any<T, ...>';

export function parseTypeSpec(spec: TypeSpec): TypeDecl {
  if (typeof spec === 'string') return new Reader(spec).whole();
  checkDecl(spec);
  return spec;
}

class Reader {
  private i = 0;
  constructor(private readonly s: string) {}

  whole(): TypeDecl {
    const t = this.type();
    this.space();
    if (this.i < this.s.length) this.fail(`unexpected "${this.s.slice(this.i)}"`);
    return t;
  }

  private fail(why: string): never {
    throw new TypeSpecError(`type "${this.s}": ${why} (types: ${WANT})`);
  }

  private space(): void {
    while (this.s[this.i] === ' ') this.i++;
  }

  private eat(c: string): boolean {
    this.space();
    if (this.s[this.i] !== c) return false;
    this.i++;
    return true;
  }

  private expect(c: string): void {
    if (!this.eat(c)) this.fail(`expected "${c}" at position ${this.i + 1}`);
  }

  private word(): string {
    this.space();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.i));
    if (!m) this.fail(`expected a type at position ${this.i + 1}`);
    this.i += m[0].length;
    return m[0];
  }

  /** T, T, ... up to the closing bracket. */
  private list<X>(close: string, item: () => X): X[] {
    const out: X[] = [];
    if (this.eat(close)) return out;
    do out.push(item());
    while (this.eat(','));
    this.expect(close);
    return out;
  }

  private type(): TypeDecl {
    const name = this.word();
    switch (name) {
      case 'null':
      case 'boolean':
      case 'number':
      case 'string':
        return { type: name };
      case 'any':
        if (this.eat('<')) return { type: 'any', of: this.list('>', () => this.type()) };
        return { type: 'any' };
      case 'set': {
        if (!this.eat('[')) return { type: 'set', of: { type: 'any' } };
        const of = this.type();
        this.expect(']');
        return { type: 'set', of };
      }
      case 'array': {
        const items = this.eat('<') ? this.list('>', () => this.type()) : undefined;
        let dynamic: TypeDecl | undefined;
        if (this.eat('[')) {
          dynamic = this.type();
          this.expect(']');
        }
        if (!items && !dynamic) return { type: 'array', dynamic: { type: 'any' } };
        return { type: 'array', ...(items ? { static: items } : {}), ...(dynamic ? { dynamic } : {}) };
      }
      case 'object': {
        const fields = this.eat('<') ? this.list('>', () => this.field()) : undefined;
        let dynamic: { key: TypeDecl; value: TypeDecl } | undefined;
        if (this.eat('[')) {
          const key = this.type();
          this.expect(':');
          const value = this.type();
          this.expect(']');
          dynamic = { key, value };
        }
        if (!fields && !dynamic) return { type: 'object', dynamic: { key: { type: 'any' }, value: { type: 'any' } } };
        return { type: 'object', ...(fields ? { static: fields } : {}), ...(dynamic ? { dynamic } : {}) };
      }
      default:
        this.fail(`unknown type "${name}"`);
    }
  }

  /** `key: T` in object<...>; a key that is no identifier is written as a JSON string. */
  private field(): { key: string; value: TypeDecl } {
    this.space();
    let key: string;
    if (this.s[this.i] === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(this.s.slice(this.i));
      if (!m) this.fail('unterminated key');
      key = JSON.parse(m[0]) as string;
      this.i += m[0].length;
    } else key = this.word();
    this.expect(':');
    return { key, value: this.type() };
  }
}

/** A TypeDecl object as a user wrote it: every part has a known `type`. */
function checkDecl(t: unknown, at = 'type'): void {
  const o = t as { type?: unknown; of?: unknown; static?: unknown; dynamic?: unknown };
  if (typeof o !== 'object' || o === null || typeof o.type !== 'string' || !KINDS.has(o.type))
    throw new TypeSpecError(`${at}: ${JSON.stringify(t)} is not a type (a string such as "array[string]", or {"type": ...} as in OPA's capabilities; types: ${WANT})`);
  switch (o.type) {
    case 'any':
      if (o.of !== undefined) eachOf(o.of, at, (x, i) => checkDecl(x, `${at}.of[${i}]`));
      return;
    case 'set':
      checkDecl(o.of, `${at}.of`);
      return;
    case 'array':
      if (o.static !== undefined) eachOf(o.static, at, (x, i) => checkDecl(x, `${at}.static[${i}]`));
      if (o.dynamic !== undefined) checkDecl(o.dynamic, `${at}.dynamic`);
      return;
    case 'object': {
      if (o.static !== undefined)
        eachOf(o.static, at, (x, i) => {
          const f = x as { key?: unknown; value?: unknown };
          if (typeof f?.key !== 'string') throw new TypeSpecError(`${at}.static[${i}].key: must be a string`);
          checkDecl(f.value, `${at}.static[${i}].value`);
        });
      const d = o.dynamic as { key?: unknown; value?: unknown } | undefined;
      if (d !== undefined) {
        checkDecl(d?.key, `${at}.dynamic.key`);
        checkDecl(d?.value, `${at}.dynamic.value`);
      }
      return;
    }
  }
}

function eachOf(v: unknown, at: string, f: (x: unknown, i: number) => void): void {
  if (!Array.isArray(v)) throw new TypeSpecError(`${at}: expected a list of types`);
  v.forEach(f);
}
