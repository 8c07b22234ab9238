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

  it('never shows a server path beside a module whose id has no directory (one put through the policy API)', () => {
    // regolith run -b /tmp/walk/local beside PUT /v1/policies/rbac: the id "rbac" shares no
    // directory with the bundle's files, which once left their whole path showing
    const m = moduleNames(['/tmp/walk/local/tools/tools.rego', '/tmp/walk/local/system/authz.rego', 'rbac'], []);
    expect(m.get('rbac')).toBe('rbac');
    expect(m.get('/tmp/walk/local/tools/tools.rego')).toBe('tools/tools.rego');
    expect(m.get('/tmp/walk/local/system/authz.rego')).toBe('system/authz.rego');
    const relative = moduleNames(['policies/authz/a.rego', 'policies/lib/b.rego', 'x.rego'], []);
    expect([...relative.values()]).toEqual(['authz/a.rego', 'lib/b.rego', 'x.rego']);
  });

  it('shows only the file name of absolute paths that share no directory', () => {
    const m = moduleNames(['/srv/secret/a.rego', '/home/ops/lib/b.rego', 'policies/c.rego'], []);
    expect(m.get('/srv/secret/a.rego')).toBe('a.rego');
    expect(m.get('/home/ops/lib/b.rego')).toBe('b.rego');
    for (const name of m.values()) expect(name).not.toMatch(/srv|home|secret|ops/);
  });

  it('keeps names unique', () => {
    const m = moduleNames(['b/policy.rego', '/srv/policy.rego'], ['b']);
    expect(new Set(m.values()).size).toBe(2);
    expect(m.get('b/policy.rego')).toBe('policy.rego');
    expect(m.get('/srv/policy.rego')).toBe('policy~2.rego');
  });
});
