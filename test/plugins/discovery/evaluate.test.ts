// Evaluating a discovery bundle into a configuration: static JSON, a Rego policy reading
// opa.runtime(), ${VAR} substitution in the result, and the errors OPA gives.

import { describe, expect, it } from 'vitest';
import { evaluateDiscovery } from '../../../src/plugins/discovery/evaluate.js';
import { makeBundle } from '../../loopback.js';

describe('evaluateDiscovery', () => {
  it('the whole data document when no decision is configured', () => {
    const b = makeBundle({ revision: '1', data: { bundles: { main: { resource: 'x' } } } });
    expect(evaluateDiscovery(b, { query: 'data' })).toEqual({ bundles: { main: { resource: 'x' } } });
  });

  it('a Rego decision reading opa.runtime()', () => {
    const b = makeBundle({
      revision: '1',
      modules: {
        'config.rego': `package config
main := {"bundles": {"main": {"resource": sprintf("bundles/%s.tar.gz", [opa.runtime().env.REGION])}}, "labels": {"region": opa.runtime().env.REGION}}
`,
      },
    });
    expect(evaluateDiscovery(b, { query: 'data.config.main', runtime: { env: { REGION: 'eu' } } })).toEqual({
      bundles: { main: { resource: 'bundles/eu.tar.gz' } },
      labels: { region: 'eu' },
    });
  });

  it("the README's example: the bundle chosen by a boot label read with opa.runtime()", () => {
    const b = makeBundle({
      revision: '1',
      modules: {
        'config.rego': `package config

main := {
  "bundles": {"authz": {"service": "control", "resource": sprintf("bundles/%s/authz.tar.gz", [opa.runtime().config.labels.region])}},
  "decision_logs": {"service": "control", "reporting": {"min_delay_seconds": 5, "max_delay_seconds": 10}},
  "status": {"service": "control"},
}
`,
      },
    });
    const cfg = evaluateDiscovery(b, { query: 'data.config.main', runtime: { config: { labels: { region: 'eu-west' } } } });
    expect(cfg['bundles']).toEqual({ authz: { service: 'control', resource: 'bundles/eu-west/authz.tar.gz' } });
  });

  it('replaces ${VAR} in the result from the environment', () => {
    const b = makeBundle({ revision: '1', data: { config: { labels: { team: '${TEAM}' } } } });
    expect(evaluateDiscovery(b, { query: 'data.config', env: { TEAM: 'blue' } })).toEqual({ labels: { team: 'blue' } });
  });

  it('undefined decision: "undefined configuration"', () => {
    const b = makeBundle({ revision: '1', data: {} });
    expect(() => evaluateDiscovery(b, { query: 'data.config.main' })).toThrow('undefined configuration');
  });

  it('a policy that does not compile throws the compile error', () => {
    const b = makeBundle({ revision: '1', modules: { 'x.rego': 'package x\nmain := y\n' } });
    expect(() => evaluateDiscovery(b, { query: 'data.x.main' })).toThrow(/var y is unsafe|unsafe/);
  });

  it('a configuration that is not an object is refused', () => {
    const b = makeBundle({ revision: '1', data: { config: [1, 2] } });
    expect(() => evaluateDiscovery(b, { query: 'data.config' })).toThrow('must be an object');
  });
});
