// The configuration a discovery bundle gives: its modules compiled on their own (never
// mixed with the served policy) over its data, the discovery query evaluated once with
// the runtime document for opa.runtime(), ${VAR} replaced from the environment in the
// result (as OPA does), and the result required to be an object.

import { Regolith } from '../../engine/index.js';
import { regoVersionForFile, type Bundle } from '../../bundle/index.js';
import { substituteEnv } from '../config/load.js';

export class DiscoveryEvalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiscoveryEvalError';
  }
}

export interface EvaluateOptions {
  /** data, data.<decision> or data.<name> (the discovery section's query). */
  query: string;
  /** opa.runtime()'s document. */
  runtime?: unknown;
  /** Rego version of modules whose manifest does not say. */
  regoVersion?: 'v0' | 'v1';
  env?: NodeJS.ProcessEnv;
}

export function evaluateDiscovery(bundle: Bundle, o: EvaluateOptions): Record<string, unknown> {
  const r = new Regolith({ regoVersion: o.regoVersion ?? 'v1' });
  for (const m of bundle.modules) {
    const v = regoVersionForFile(bundle.manifest, m.path);
    r.addModule(`discovery/${m.path.replace(/^\/+/, '')}`, m.text, { regoVersion: v === 0 ? 'v0' : v === 1 ? 'v1' : undefined });
  }
  r.setData(bundle.data);
  const rs = r.prepare(o.query).evaluate({ runtime: o.runtime });
  if (!rs.length) throw new DiscoveryEvalError('undefined configuration');
  const value = rs[0]!.expressions[0]!.value;
  let doc: unknown;
  try {
    doc = JSON.parse(substituteEnv(JSON.stringify(value), o.env));
  } catch (e) {
    throw new DiscoveryEvalError(`invalid configuration after environment substitution: ${(e as Error).message}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new DiscoveryEvalError('invalid configuration: the discovered configuration must be an object');
  return doc as Record<string, unknown>;
}
