// OPA's rules for a discovered configuration against the boot configuration, one case each
// (v1/plugins/discovery: processBundle, mergeValuesAndListOverrides, the trigger-mode rule,
// and the manager's labels rule), and the discovery section itself (config.go).

import { describe, expect, it } from 'vitest';
import { validateConfig, ConfigError } from '../../../src/plugins/config/index.js';
import { discoveryQuery } from '../../../src/plugins/config/discovery.js';
import { mergeDiscovered, mergeOverrides, validateDiscovered } from '../../../src/plugins/discovery/merge.js';

const SVC = { disco: { url: 'http://127.0.0.1:1/' } };
const boot = (extra: Record<string, unknown> = {}) =>
  validateConfig({ services: SVC, discovery: { resource: '/discovery.tar.gz' }, ...extra });

describe('mergeOverrides (mergeValuesAndListOverrides)', () => {
  it('the boot value wins a conflict and the key is listed with its dotted path', () => {
    const dest = { decision_logs: { console: false, reporting: { min_delay_seconds: 5 } } };
    const over = mergeOverrides(dest, { decision_logs: { console: true } });
    expect(dest).toEqual({ decision_logs: { console: true, reporting: { min_delay_seconds: 5 } } });
    expect(over).toEqual(['decision_logs.console']);
  });

  it('objects merge key by key: both sides keep what the other does not have', () => {
    const dest: Record<string, unknown> = { bundles: { a: { resource: 'a' } } };
    const over = mergeOverrides(dest, { bundles: { b: { resource: 'b' } }, labels: { x: '1' } });
    expect(dest).toEqual({ bundles: { a: { resource: 'a' }, b: { resource: 'b' } }, labels: { x: '1' } });
    expect(over).toEqual([]);
  });

  it('an equal value is not an override', () => {
    const dest = { default_decision: '/a/b' };
    expect(mergeOverrides(dest, { default_decision: '/a/b' })).toEqual([]);
  });

  it('lists are replaced whole, never merged element by element', () => {
    const dest = { bundles: { a: { signing: { exclude_files: ['x', 'y'] } } } };
    const over = mergeOverrides(dest, { bundles: { a: { signing: { exclude_files: ['z'] } } } });
    expect(dest.bundles.a.signing.exclude_files).toEqual(['z']);
    expect(over).toEqual(['bundles.a.signing.exclude_files']);
  });

  it('a boot object over a discovered scalar replaces it (listed)', () => {
    const dest: Record<string, unknown> = { status: true };
    const over = mergeOverrides(dest, { status: { console: true } });
    expect(dest).toEqual({ status: { console: true } });
    expect(over).toEqual(['status']);
  });

  it('a boot scalar over a discovered object replaces it (listed)', () => {
    const dest: Record<string, unknown> = { nd_builtin_cache: { x: 1 } };
    expect(mergeOverrides(dest, { nd_builtin_cache: true })).toEqual(['nd_builtin_cache']);
    expect(dest['nd_builtin_cache']).toBe(true);
  });
});

describe('mergeDiscovered', () => {
  it('the discovery section is always the boot one', () => {
    const m = mergeDiscovered(boot(), { discovery: { resource: '/elsewhere.tar.gz' }, labels: { a: 'b' } });
    expect(m.raw['discovery']).toEqual({ resource: '/discovery.tar.gz' });
    expect(validateConfig(m.raw).discovery!.source.resource).toBe('/discovery.tar.gz');
  });

  it('refuses a change to the discovery service', () => {
    expect(() => mergeDiscovered(boot(), { services: { disco: { url: 'http://127.0.0.1:2' } } })).toThrow('updates to the discovery service are not allowed');
  });

  it('accepts the discovery service unchanged (written differently) and other services added', () => {
    const b = boot();
    const m = mergeDiscovered(b, { services: { disco: { url: 'http://127.0.0.1:1' }, logs: { url: 'http://127.0.0.1:3' } } });
    // the discovery section (service unnamed) is not resolved again against the new services
    expect(() => validateConfig(m.raw)).toThrow('more than one service');
    const cfg = validateDiscovered(b, m.raw);
    expect(cfg.discovery).toBe(b.discovery);
    expect(Object.keys(cfg.services).sort()).toEqual(['disco', 'logs']);
  });

  it('refuses a change to a key the boot configuration gives (the discovery bundle is verified)', () => {
    const b = boot({ keys: { k1: { algorithm: 'HS256', key: 'secret' } } });
    expect(b.discovery!.source.signing).toEqual({});
    expect(() => mergeDiscovered(b, { keys: { k1: { algorithm: 'HS256', key: 'other' } } })).toThrow('updates to keys specified in the boot configuration are not allowed');
    // a new key is fine
    const m = mergeDiscovered(b, { keys: { k2: { algorithm: 'HS256', key: 'two' } } });
    expect(Object.keys(validateConfig(m.raw).keys).sort()).toEqual(['k1', 'k2']);
  });

  it('boot labels win; discovered labels are added', () => {
    const m = mergeDiscovered(boot({ labels: { region: 'eu', app: 'x' } }), { labels: { region: 'us', team: 'y' } });
    expect(m.raw['labels']).toEqual({ region: 'eu', app: 'x', team: 'y' });
    expect(m.overridden).toEqual(['labels.region']);
  });

  it('boot plugin settings win over the discovered ones, the rest of the discovered section stays', () => {
    const b = boot({ decision_logs: { console: true } });
    const m = mergeDiscovered(b, {
      services: { logs: { url: 'http://127.0.0.1:3' } },
      decision_logs: { service: 'logs', console: false, reporting: { min_delay_seconds: 1, max_delay_seconds: 2 } },
    });
    const cfg = validateDiscovered(b, m.raw);
    expect(cfg.decision_logs).toMatchObject({ service: 'logs', console: true, reporting: { min_delay_seconds: 1, max_delay_seconds: 2 } });
    expect(m.overridden).toEqual(['decision_logs.console']);
  });

  it('discovered plugins without a trigger take the discovery trigger', () => {
    const b = validateConfig({ services: SVC, discovery: { resource: 'd', trigger: 'manual' } });
    const m = mergeDiscovered(b, { bundles: { main: { service: 'disco' } }, decision_logs: { console: true }, status: { console: true } });
    const cfg = validateConfig(m.raw);
    expect(cfg.bundles['main']!.trigger).toBe('manual');
    expect(cfg.decision_logs!.reporting.trigger).toBe('manual');
    expect(cfg.status!.trigger).toBe('manual');
  });

  it('a discovered plugin with another trigger than discovery is an error', () => {
    const b = validateConfig({ services: SVC, discovery: { resource: 'd', trigger: 'manual' } });
    expect(() => mergeDiscovered(b, { bundles: { main: { service: 'disco', trigger: 'periodic' } } })).toThrow(/bundles\.main\.trigger: trigger mode mismatch: manual and periodic/);
  });

  it('without a discovery trigger, discovered triggers stay as written (default periodic)', () => {
    const m = mergeDiscovered(boot(), { bundles: { main: { service: 'disco', trigger: 'manual' }, other: { service: 'disco' } } });
    const cfg = validateConfig(m.raw);
    expect(cfg.bundles['main']!.trigger).toBe('manual');
    expect(cfg.bundles['other']!.trigger).toBe('periodic');
  });

  it('top-level keys a configuration does not have are dropped and named', () => {
    const m = mergeDiscovered(boot(), { example: { allow: true }, labels: { a: 'b' } });
    expect(m.raw['example']).toBeUndefined();
    expect(m.dropped).toEqual(['example']);
    expect(() => validateConfig(m.raw)).not.toThrow();
  });

  it('an invalid discovered configuration fails validation naming the key', () => {
    const m = mergeDiscovered(boot(), { bundles: { main: { service: 'nope' } } });
    expect(() => validateConfig(m.raw)).toThrow(ConfigError);
    expect(() => validateConfig(m.raw)).toThrow(/bundles\.main\.service/);
  });
});

describe('the discovery section', () => {
  it('resource is required unless the deprecated name is given', () => {
    expect(() => validateConfig({ services: SVC, discovery: {} })).toThrow('missing required discovery.resource field');
  });

  it('the deprecated name: resource <prefix>/<name> (prefix "bundles" by default), query data.<name>', () => {
    const d = validateConfig({ services: SVC, discovery: { name: 'a/b' } }).discovery!;
    expect(d.source.resource).toBe('bundles/a/b');
    expect(d.query).toBe('data.a.b');
    expect(d.source.name).toBe('a/b');
    expect(validateConfig({ services: SVC, discovery: { name: 'x', prefix: '/p/' } }).discovery!.source.resource).toBe('p/x');
  });

  it('decision gives the query; none gives the whole data document', () => {
    expect(validateConfig({ services: SVC, discovery: { resource: 'r', decision: '/config/main' } }).discovery!.query).toBe('data.config.main');
    expect(validateConfig({ services: SVC, discovery: { resource: 'r' } }).discovery!.query).toBe('data');
    expect(discoveryQuery('x/y/')).toBe('data.x.y');
  });

  it('the service: the only one when not named; a named one must exist', () => {
    expect(validateConfig({ services: SVC, discovery: { resource: 'r' } }).discovery!.source.service).toBe('disco');
    expect(() => validateConfig({ services: { ...SVC, b: { url: 'http://x' } }, discovery: { resource: 'r' } })).toThrow('discovery.service: more than one service is defined');
    expect(() => validateConfig({ services: SVC, discovery: { resource: 'r', service: 'zz' } })).toThrow('discovery.service: service name "zz" not found');
  });

  it('polling, persist, signing and unknown keys', () => {
    const d = validateConfig({
      services: SVC,
      keys: { k: { algorithm: 'HS256', key: 's' } },
      discovery: { resource: 'r', persist: true, polling: { min_delay_seconds: 1, max_delay_seconds: 3 }, signing: { keyid: 'k' } },
    }).discovery!;
    expect(d.source).toMatchObject({ persist: true, polling: { min_delay_seconds: 1, max_delay_seconds: 3 }, signing: { keyid: 'k' } });
    expect(() => validateConfig({ services: SVC, discovery: { resource: 'r', signing: { keyid: 'nope' } } })).toThrow('key "nope" not found');
    expect(() => validateConfig({ services: SVC, discovery: { resource: 'r', colour: 1 } })).toThrow('discovery.colour: unknown configuration key');
    // no keys, no signing: an unsigned discovery bundle is accepted
    expect(validateConfig({ services: SVC, discovery: { resource: 'r' } }).discovery!.source.signing).toBeUndefined();
  });
});
