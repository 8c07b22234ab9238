// Reading one object of the configuration: typed getters that remember which keys were
// read, so that a key nobody read (a typo) fails with its dotted name.

import { ConfigError, type PollingConfig, type ServiceConfig, type Trigger } from './types.js';

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function fail(key: string, problem: string): never {
  throw new ConfigError(`invalid configuration: ${key}: ${problem}`);
}

/** Reads the fields of one object, remembering which were consumed so leftovers are errors. */
export class Section {
  private readonly seen = new Set<string>();
  constructor(readonly key: string, readonly obj: Obj) {}

  static of(key: string, v: unknown): Section {
    if (v === undefined || v === null) return new Section(key, {});
    if (!isObj(v)) fail(key, 'expected an object');
    return new Section(key, v);
  }

  private k(name: string): string {
    return this.key ? `${this.key}.${name}` : name;
  }

  raw(name: string): unknown {
    this.seen.add(name);
    const v = this.obj[name];
    return v === null ? undefined : v;
  }

  str(name: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') fail(this.k(name), 'expected a string');
    return v;
  }

  reqStr(name: string): string {
    const v = this.str(name);
    if (v === undefined || v === '') fail(this.k(name), 'missing required value');
    return v;
  }

  bool(name: string, dflt: boolean): boolean {
    const v = this.raw(name);
    if (v === undefined) return dflt;
    if (typeof v !== 'boolean') fail(this.k(name), 'expected a boolean');
    return v;
  }

  /** A non-negative integer (OPA's delays and sizes are int64). */
  int(name: string): number | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(this.k(name), 'expected a non-negative integer');
    return v;
  }

  strList(name: string): string[] | undefined {
    const v = this.raw(name);
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) fail(this.k(name), 'expected a list of strings');
    return v as string[];
  }

  strMap(name: string): Record<string, string> {
    const v = this.raw(name);
    if (v === undefined) return {};
    if (!isObj(v)) fail(this.k(name), 'expected an object of strings');
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'string') out[k] = x;
      else if (typeof x === 'number' || typeof x === 'boolean') out[k] = String(x);
      else fail(`${this.k(name)}.${k}`, 'expected a string');
    }
    return out;
  }

  sub(name: string): Section {
    return Section.of(this.k(name), this.raw(name));
  }

  has(name: string): boolean {
    return this.obj[name] !== undefined && this.obj[name] !== null;
  }

  trigger(name: string): Trigger {
    const v = this.str(name) ?? 'periodic';
    if (v !== 'periodic' && v !== 'manual') fail(this.k(name), `invalid trigger mode "${v}" (want "periodic" or "manual")`);
    return v;
  }

  /** Fails on any key not read. */
  done(ignore: string[] = []): void {
    for (const k of Object.keys(this.obj)) {
      if (!this.seen.has(k) && !ignore.includes(k)) fail(this.k(k), 'unknown configuration key');
    }
  }
}


/** OPA's polling section (delays in seconds), with the defaults of what it configures. */
export function polling(p: Section, dmin = 60, dmax = 120): PollingConfig {
  const min = p.int('min_delay_seconds') ?? dmin;
  const max = p.int('max_delay_seconds') ?? dmax;
  if (min > max) fail(p.key, 'minimum polling interval must be less than or equal to the maximum');
  const lp = p.int('long_polling_timeout_seconds');
  if (lp === 0) fail(`${p.key}.long_polling_timeout_seconds`, 'must be greater than 0');
  p.done();
  return { min_delay_seconds: min, max_delay_seconds: max, long_polling_timeout_seconds: lp };
}

/** A named service that must exist; none named: the first configured one, as OPA picks. */
export function checkService(key: string, name: string | undefined, svcs: Record<string, ServiceConfig>): string | undefined {
  if (name === undefined) {
    const all = Object.keys(svcs);
    // Like OPA: with no service named, the only (or first) configured service is used.
    return all[0];
  }
  if (!svcs[name]) fail(key, `invalid service name "${name}"`);
  return name;
}

