// The names the console shows for the server's modules: bundle-relative, never a server path.

import { describe, expect, it } from 'vitest';
import { moduleNames } from '../../../src/console/playground/module-names.js';

describe('moduleNames', () => {
  it('drops the bundle name from a bundle module id', () => {
    const m = moduleNames(['payments/payments/policy.rego', 'a/b/x.rego'], ['payments', 'a/b', 'a']);
    expect(m.get('payments/payments/policy.rego')).toBe('payments/policy.rego');
    expect(m.get('a/b/x.rego')).toBe('x.rego');
  });

  it('shows loose files relative to the directory they share, never an absolute path', () => {
    const m = moduleNames(['/srv/secret/policies/authz/a.rego', '/srv/secret/policies/lib/b.rego'], []);
    expect([...m.values()]).toEqual(['authz/a.rego', 'lib/b.rego']);
    expect(moduleNames(['/srv/secret/policy.rego'], []).get('/srv/secret/policy.rego')).toBe('policy.rego');
    expect(moduleNames(['C:\\srv\\p\\x.rego'], []).get('C:\\srv\\p\\x.rego')).toBe('x.rego');
    expect(moduleNames(['../up/x.rego', '../up/y/z.rego'], []).get('../up/y/z.rego')).toBe('y/z.rego');
  });

  it('keeps names unique', () => {
    const m = moduleNames(['b/policy.rego', '/srv/policy.rego'], ['b']);
    expect(new Set(m.values()).size).toBe(2);
    expect(m.get('b/policy.rego')).toBe('policy.rego');
    expect(m.get('/srv/policy.rego')).toBe('policy~2.rego');
  });
});
