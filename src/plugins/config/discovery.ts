// The discovery section, read as OPA's discovery plugin reads it: resource (or the
// deprecated name, under prefix, default "bundles"), service (the only one when not named),
// decision (the query whose value is the configuration), signing, polling, persist, trigger.

import type { DiscoveryConfig, KeyEntry, ServiceConfig } from './types.js';
import { fail, polling, Section } from './section.js';

/** "a/b" -> data.a.b; none -> data (OPA's query: the whole data document). */
export function discoveryQuery(path: string | undefined): string {
  const t = path?.replace(/^\/+|\/+$/g, '');
  return t ? `data.${t.replace(/\//g, '.')}` : 'data';
}

export function discovery(v: unknown, svcs: Record<string, ServiceConfig>, ks: Record<string, KeyEntry>): DiscoveryConfig | undefined {
  if (v === undefined || v === null) return undefined;
  const s = Section.of('discovery', v);
  const name = s.str('name');
  const prefix = s.str('prefix');
  let resource = s.str('resource');
  if (resource === undefined && name === undefined) fail('discovery', 'missing required discovery.resource field');
  resource ??= `${(prefix ?? 'bundles').replace(/^\/+|\/+$/g, '')}/${name!.replace(/^\/+|\/+$/g, '')}`;
  const named = s.str('service');
  let service: string;
  if (named === undefined || named === '') {
    const all = Object.keys(svcs);
    if (all.length !== 1) fail('discovery.service', all.length ? 'more than one service is defined' : 'no service is defined');
    service = all[0]!;
  } else {
    if (!svcs[named]) fail('discovery.service', `service name "${named}" not found`);
    service = named;
  }
  const decision = s.str('decision');
  const trigger = s.has('trigger') ? s.trigger('trigger') : undefined;
  const out: DiscoveryConfig = {
    source: {
      name: name ?? 'discovery',
      service,
      resource,
      polling: polling(s.sub('polling')),
      persist: s.bool('persist', false),
      size_limit_bytes: s.int('size_limit_bytes'),
      trigger: trigger ?? 'periodic',
    },
    query: discoveryQuery(decision ?? name),
    trigger,
  };
  if (s.has('signing')) {
    const g = s.sub('signing');
    out.source.signing = { keyid: g.str('keyid'), scope: g.str('scope'), exclude_files: g.strList('exclude_files') };
    if (out.source.signing.keyid !== undefined && !ks[out.source.signing.keyid]) fail('discovery.signing.keyid', `key "${out.source.signing.keyid}" not found in keys`);
    g.done();
  } else if (Object.keys(ks).length) {
    // As OPA: with keys configured, the discovery bundle must be signed by one of them.
    out.source.signing = {};
  }
  s.done();
  return out;
}
