// How a discovered configuration meets the boot configuration, by OPA's rules:
// - the discovery section is always the boot one (changes to it are ignored: a broken one
//   could never be recovered from);
// - the discovery service may not be changed, nor a key the boot configuration gives when
//   the discovery bundle is verified (both refuse the whole discovered configuration);
// - the boot configuration wins every conflict, key by key down nested objects (lists and
//   other values are replaced whole); the keys it overrode are listed for the status;
// - labels: the boot ones win, the discovered ones are added (the rule above);
// - discovered plugins without a trigger take the discovery trigger; another one is an error;
// - top-level keys the configuration does not have are dropped (OPA's parser ignores them).

import { ConfigError, type Config } from '../config/types.js';
import { validateConfig } from '../config/validate.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The top-level sections a configuration has (validateConfig reads them). */
export const TOP_LEVEL_KEYS = new Set([
  'services',
  'labels',
  'keys',
  'discovery',
  'bundle',
  'bundles',
  'decision_logs',
  'status',
  'plugins',
  'default_decision',
  'default_authorization_decision',
  'persistence_directory',
  'adapters',
  'server',
  'caching',
  'nd_builtin_cache',
  'distributed_tracing',
  'storage',
]);

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

const clone = <T>(v: T): T => structuredClone(v);

/**
 * Merges `src` (the boot configuration) into `dest` (the discovered one), src winning;
 * returns the dotted keys of dest whose values src replaced with different ones.
 */
export function mergeOverrides(dest: Obj, src: Obj, prefix = ''): string[] {
  const overridden: string[] = [];
  for (const [k, v] of Object.entries(src)) {
    if (!Object.hasOwn(dest, k)) {
      dest[k] = clone(v);
      continue;
    }
    const full = prefix ? `${prefix}.${k}` : k;
    if (!isObj(v)) {
      if (!deepEqual(dest[k], v)) overridden.push(full);
      dest[k] = clone(v);
    } else if (!isObj(dest[k])) {
      dest[k] = clone(v);
      overridden.push(full);
    } else {
      overridden.push(...mergeOverrides(dest[k], v, full));
    }
  }
  return overridden;
}

/** Services or keys of a raw document as validated (defaults in), or undefined when it does not validate. */
function validated<K extends 'services' | 'keys'>(section: K, raw: unknown): Config[K] | undefined {
  if (raw === undefined || raw === null) return undefined;
  return validateConfig({ [section]: raw })[section];
}

/** Applies the discovery trigger to a plugin section's `trigger` (OPA's trigger-mode rule). */
function inheritTrigger(section: unknown, key: string, trigger: string): void {
  if (!isObj(section)) return;
  const own = section['trigger'];
  if (own === undefined || own === null) section['trigger'] = trigger;
  else if (own !== trigger) throw new ConfigError(`invalid configuration: ${key}.trigger: trigger mode mismatch: ${trigger} and ${String(own)} (hint: check discovery configuration)`);
}

export interface Merged {
  /** The configuration document to validate and apply. */
  raw: Obj;
  /** Discovered keys the boot configuration overrode (dotted). */
  overridden: string[];
  /** Top-level keys dropped because a configuration has no such section. */
  dropped: string[];
}

/**
 * The discovered document merged under the boot configuration. Throws ConfigError when the
 * discovered document changes what it may not (the discovery service, a boot key).
 */
export function mergeDiscovered(boot: Config, discovered: Obj): Merged {
  const doc: Obj = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(discovered)) {
    if (TOP_LEVEL_KEYS.has(k)) doc[k] = clone(v);
    else dropped.push(k);
  }
  const d = boot.discovery;
  if (boot.raw['discovery'] === undefined) delete doc['discovery'];
  else doc['discovery'] = clone(boot.raw['discovery']);

  if (d) {
    const svcName = d.source.service;
    const svcs = validated('services', doc['services']);
    if (svcs?.[svcName] && !deepEqual(svcs[svcName], boot.services[svcName])) throw new ConfigError('updates to the discovery service are not allowed');
    if (d.source.signing) {
      const ks = validated('keys', doc['keys']) ?? {};
      for (const [name, k] of Object.entries(ks)) {
        if (boot.keys[name] && !deepEqual(k, boot.keys[name])) throw new ConfigError('updates to keys specified in the boot configuration are not allowed');
      }
    }
  }

  const overridden = mergeOverrides(doc, boot.raw);

  if (d?.trigger) {
    const t = d.trigger;
    if (isObj(doc['bundles'])) for (const [name, b] of Object.entries(doc['bundles'])) inheritTrigger(b, `bundles.${name}`, t);
    if (isObj(doc['decision_logs'])) {
      const dl = doc['decision_logs'];
      if (!isObj(dl['reporting'])) dl['reporting'] = {};
      inheritTrigger(dl['reporting'], 'decision_logs.reporting', t);
    }
    inheritTrigger(doc['status'], 'status', t);
  }
  return { raw: doc, overridden, dropped };
}

/**
 * The merged document validated into the configuration to apply. Its discovery section is
 * the boot one as resolved at start (OPA never parses it again: a service added by the
 * discovered configuration must not make an unnamed discovery service ambiguous).
 */
export function validateDiscovered(boot: Config, merged: Obj): Config {
  const rest = { ...merged };
  delete rest['discovery'];
  const cfg = validateConfig(rest);
  cfg.discovery = boot.discovery;
  cfg.raw = merged;
  return cfg;
}
