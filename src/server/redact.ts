// The configuration as /v1/config shows it: services lose `credentials`, keys lose
// `private_key` and `key`, adapters lose `token` and `push.token`, and the defaults OPA reports are filled in.

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function cloneJSON(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

function withoutFields(entry: unknown, fields: string[]): unknown {
  if (!isObj(entry)) return entry;
  const out: Obj = {};
  for (const [k, v] of Object.entries(entry)) if (!fields.includes(k)) out[k] = v;
  return out;
}

/** Services and keys may be maps (name -> entry) or lists of entries; both are redacted. */
function redactEach(coll: unknown, fields: string[]): unknown {
  if (Array.isArray(coll)) return coll.map((e) => withoutFields(e, fields));
  if (isObj(coll)) {
    const out: Obj = {};
    for (const [k, v] of Object.entries(coll)) out[k] = withoutFields(v, fields);
    return out;
  }
  return coll;
}

export function redactConfig(config: Obj, version: string): Obj {
  const out = (cloneJSON(config) ?? {}) as Obj;
  if ('services' in out) out['services'] = redactEach(out['services'], ['credentials']);
  if ('keys' in out) out['keys'] = redactEach(out['keys'], ['private_key', 'key']);
  // an event adapter's shared secret, and a data adapter's push channel token
  if (isObj(out['adapters'])) {
    const adapters = redactEach(out['adapters'], ['token']) as Obj;
    for (const [k, a] of Object.entries(adapters)) if (isObj(a) && isObj(a['push'])) adapters[k] = { ...a, push: withoutFields(a['push'], ['token']) };
    out['adapters'] = adapters;
  }
  const labels = isObj(out['labels']) ? out['labels'] : {};
  out['labels'] = { ...labels, version: labels['version'] ?? version };
  out['default_decision'] ??= '/system/main';
  out['default_authorization_decision'] ??= '/system/authz/allow';
  return out;
}
