import { describe, expect, it } from 'vitest';
import { callBuiltin, callBuiltinAsync, fakeContext } from './fake-context.js';
import { RSet, toJS, type Value } from '../../../src/value/index.js';

const call = (name: string, ...args: Value[]) => callBuiltin(name, args);
const js = (v: Value | undefined) => toJS(v!);
const err = (name: string, ...args: Value[]) => {
  try {
    call(name, ...args);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('no error');
};

describe('net.cidr_contains / intersects / overlap', () => {
  it('matches OPA', () => {
    expect(call('net.cidr_contains', '10.0.0.0/8', '10.1.0.0/24')).toBe(true);
    expect(call('net.cidr_contains', '172.17.0.0/24', '172.17.0.0/16')).toBe(false);
    expect(call('net.cidr_contains', '10.0.0.0/8', '192.168.1.0/24')).toBe(false);
    expect(call('net.cidr_contains', '10.0.0.0/8', '10.1.1.1/32')).toBe(true);
    expect(call('net.cidr_contains', '2001:4860:4860::8888/32', '2001:4860:4860:1234::8888/40')).toBe(true);
    expect(call('net.cidr_contains', '2001:4860:4860::8888/32', '2001:4860:4860:1234:5678:1234:5678:8888/128')).toBe(true);
    expect(call('net.cidr_contains', '2001:4860::/96', '2001:4860::/32')).toBe(false);
    expect(call('net.cidr_contains', '2001:4860::/32', 'fd1e:5bfe:8af3:9ddc::/64')).toBe(false);
    expect(call('net.cidr_contains', '10.0.0.0/8', '10.1.2.3')).toBe(true);
    expect(call('net.cidr_contains', '10.0.0.0/8', '192.168.1.1')).toBe(false);
    expect(call('net.cidr_contains', '10.0.0.0/8', '::ffff:10.1.2.3')).toBe(true);
    expect(err('net.cidr_contains', 'not-a-cidr', '192.168.1.67')).toBe('invalid CIDR address: not-a-cidr');
    expect(() => call('net.cidr_contains', '192.168.1.0/28', 'not-a-cidr')).toThrow();
    expect(call('net.cidr_overlap', '10.0.0.0/8', '10.1.2.3')).toBe(true);
    expect(call('net.cidr_intersects', '192.168.1.0/25', '192.168.1.64/25')).toBe(true);
    expect(call('net.cidr_intersects', '192.168.1.0/24', '192.168.2.0/24')).toBe(false);
    expect(call('net.cidr_intersects', 'fd1e:5bfe:8af3:9ddc::/64', 'fd1e:5bfe:8af3:9ddc:1111::/72')).toBe(true);
    expect(call('net.cidr_intersects', 'fd1e:5bfe:8af3:9ddc::/64', '2001:4860:4860::8888/32')).toBe(false);
    expect(() => call('net.cidr_intersects', 'not-a-cidr', '192.168.1.0/24')).toThrow();
  });
});

describe('net.cidr_is_valid / expand', () => {
  it('validates like Go ParseCIDR', () => {
    expect(call('net.cidr_is_valid', '192.168.1.0/24')).toBe(true);
    expect(call('net.cidr_is_valid', '')).toBe(false);
    expect(call('net.cidr_is_valid', 'there goes a string')).toBe(false);
    expect(call('net.cidr_is_valid', '192.168.1.2')).toBe(false);
    expect(call('net.cidr_is_valid', '2002::1234:abcd:ffff:c0a8:101/64')).toBe(true);
    expect(call('net.cidr_is_valid', '010.0.0.0/8')).toBe(false);
    expect(call('net.cidr_is_valid', '10.0.0.0/33')).toBe(false);
  });
  it('expands', () => {
    expect(js(call('net.cidr_expand', '192.168.1.1/30'))).toEqual(['192.168.1.0', '192.168.1.1', '192.168.1.2', '192.168.1.3']);
    expect(js(call('net.cidr_expand', '172.16.100.255/30'))).toEqual([
      '172.16.100.252',
      '172.16.100.253',
      '172.16.100.254',
      '172.16.100.255',
    ]);
    expect(js(call('net.cidr_expand', '192.168.1.1/32'))).toEqual(['192.168.1.1']);
    expect(js(call('net.cidr_expand', 'fe80::/127'))).toEqual(['fe80::', 'fe80::1']);
    expect(err('net.cidr_expand', '192.168.1.1/33')).toBe('invalid CIDR address: 192.168.1.1/33');
  });
});

describe('net.cidr_merge', () => {
  const merge = (xs: Value) => js(call('net.cidr_merge', xs));
  it('merges like OPA', () => {
    expect(merge(['2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128'])).toEqual(['2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128']);
    expect(merge(['2601:600:8a80:207e:a57d:7567:e2c9:e7b3/64', '2601:600:8a80:207e:a57d:7567:e2c9:e7b3/128'])).toEqual([
      '2601:600:8a80:207e::/64',
    ]);
    expect(err('net.cidr_merge', ['2601:600:8a80:207e:a57d:7567:e2c9:e7b3'])).toBe('IPv6 invalid: needs prefix length');
    expect(merge(['192.0.128.0/24', '0.0.0.0/0'])).toEqual(['0.0.0.0/0']);
    expect(merge(['192.0.128.0/24', '192.0.129.0/24'])).toEqual(['192.0.128.0/23']);
    expect(merge(['192.0.2.112/30', '192.0.2.116/31', '192.0.2.118/31'])).toEqual(['192.0.2.112/29']);
    expect(merge(['192.0.129.0/24', '192.0.130.0/24'])).toEqual(['192.0.129.0/24', '192.0.130.0/24']);
    expect(merge(['192.0.2.112/31', '192.0.2.116/31', '192.0.2.118/31'])).toEqual(['192.0.2.112/31', '192.0.2.116/30']);
    expect(merge(['::/0', '::192.0.2.0/124', 'ff00::101/128'])).toEqual(['::/0']);
    expect(merge(['fe80::/120', '192.0.2.0/24', '192.0.3.0/24', '192.0.4.0/25', '192.0.4.128/25'])).toEqual([
      '192.0.2.0/23',
      '192.0.4.0/24',
      'fe80::/120',
    ]);
    expect(merge([])).toEqual([]);
    expect(merge(['192.0.2.112', '192.0.2.116/31', '192.0.2.118/31'])).toEqual(['192.0.2.0/24']);
    expect(merge(['192.0.128.0', '192.0.129.0'])).toEqual(['192.0.128.0/23']);
    expect(merge(RSet.of('192.0.2.112/30', '192.0.2.116/31', '192.0.2.118/31'))).toEqual(['192.0.2.112/29']);
    expect(() => call('net.cidr_merge', ['foo'])).toThrow();
  });
});

describe('net.cidr_contains_matches', () => {
  it('returns matching key pairs', () => {
    expect(js(call('net.cidr_contains_matches', '1.1.1.0/24', '1.1.1.128'))).toEqual([['1.1.1.0/24', '1.1.1.128']]);
    expect(js(call('net.cidr_contains_matches', ['1.1.1.0/24', '1.1.2.0/24'], '1.1.1.128'))).toEqual([[0, '1.1.1.128']]);
    expect(
      js(call('net.cidr_contains_matches', [['1.1.0.0/16', 'foo'], '1.1.2.0/24'], { x: '1.1.1.128', y: '1.1.2.1' })),
    ).toEqual([
      [0, 'x'],
      [0, 'y'],
      [1, 'y'],
    ]);
    expect(js(call('net.cidr_contains_matches', RSet.of('10.0.0.0/8'), RSet.of('10.1.1.1', '11.0.0.1')))).toEqual([
      ['10.0.0.0/8', '10.1.1.1'],
    ]);
  });
});

describe('net.lookup_ip_addr', () => {
  it('resolves through awaitIO and caches per query', async () => {
    const ctx = fakeContext('net.lookup_ip_addr');
    const r = (await callBuiltinAsync('net.lookup_ip_addr', ['127.0.0.1'], ctx)) as RSet;
    expect(js(r)).toEqual(['127.0.0.1']);
    const l = (await callBuiltinAsync('net.lookup_ip_addr', ['localhost'], ctx)) as RSet;
    expect(l.has('127.0.0.1') || l.has('::1')).toBe(true);
    // OPA's nd_builtin_cache key: the arguments as a JSON array.
    expect(ctx.ndCache.get('net.lookup_ip_addr')?.has('["localhost"]')).toBe(true);
  });
  it('reports unknown hosts', async () => {
    await expect(callBuiltinAsync('net.lookup_ip_addr', ['no-such-host.invalid'])).rejects.toThrow(
      /lookup no-such-host.invalid: /,
    );
  });
});
