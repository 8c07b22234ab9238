// net.* built-ins: CIDR arithmetic as Go's net package does it (net-ip.ts), and DNS lookups
// through the I/O suspension mechanism (ctx.awaitIO) so the event loop never blocks.

import { promises as dns } from 'node:dns';
import { registerBuiltins, type BuiltinContext, type BuiltinImpl } from '../registry.js';
import { builtinError, operandError } from '../errors.js';
import { RSet, isPlainObject, objectEntries, RObject, type Value } from '../../../value/index.js';
import {
  defaultMaskBits,
  ipString,
  mergeNets,
  netContains,
  netLast,
  netString,
  parseCIDR,
  parseIP,
  type IPNet,
} from './ip.js';

function stringArg(args: Value[], i: number): string {
  const v = args[i]!;
  if (typeof v !== 'string') throw operandError(i + 1, 'string', v);
  return v;
}

function cidrOf(s: string): IPNet {
  const c = parseCIDR(s);
  if (!c) throw builtinError(`invalid CIDR address: ${s}`);
  return c.net;
}

/** net.cidr_contains: the second operand is an IP or a CIDR. */
function cidrContains(a: Value, b: Value): boolean {
  if (typeof a !== 'string') throw operandError(1, 'string', a);
  if (typeof b !== 'string') throw operandError(2, 'string', b);
  const network = cidrOf(a);
  const ip = parseIP(b);
  if (ip) return netContains(network, ip);
  const c = parseCIDR(b);
  if (!c) throw builtinError(`not a valid textual representation of an IP address or CIDR: ${b}`);
  const inner = c.net;
  return (
    netContains(network, { v4: inner.v4, addr: inner.addr }) &&
    netContains(network, { v4: inner.v4, addr: netLast(inner) })
  );
}

/** Each (cidr, key) of an operand of net.cidr_contains_matches. */
function matchOperand(v: Value): [Value, Value][] {
  const term = (x: Value): Value => {
    if (typeof x === 'string') return x;
    if (Array.isArray(x)) {
      if (x.length === 0) throw builtinError('cidr array must be non-empty');
      return x[0]!;
    }
    throw builtinError('cidr term must be string or array');
  };
  if (typeof v === 'string') return [[v, v]];
  if (Array.isArray(v)) return v.map((x, i) => [term(x), i]);
  if (v instanceof RSet) return v.values().map((x) => [term(x), x]);
  if (isPlainObject(v) || v instanceof RObject) return objectEntries(v).map(([k, x]) => [term(x), k]);
  return [];
}

function lookupIPAddr(name: string, ctx: BuiltinContext): Value {
  // OPA's verifyHost: with capabilities' allow_net, only the hosts listed.
  if (ctx.allowNet && !ctx.allowNet.includes(name)) throw builtinError(`unallowed host: ${name}`);
  // One answer per query: the registry's nd-cache wrapper.
  const res = ctx.awaitIO('net.lookup_ip_addr:' + name, async (): Promise<Value> => {
    try {
      const addrs = await dns.lookup(name, { all: true, verbatim: true });
      return { ok: addrs.map((a) => a.address) };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const msg = code === 'ENOTFOUND' || code === 'ENODATA' ? 'no such host' : (e as Error).message;
      return { error: `lookup ${name}: ${msg}` };
    }
  });
  const r = res as { ok?: string[]; error?: string };
  if (r.error !== undefined) throw builtinError(r.error);
  const set = new RSet();
  for (const a of r.ok ?? []) {
    const ip = parseIP(a);
    set.add(ip ? ipString(ip) : a);
  }
  return set;
}

const defs: BuiltinImpl[] = [
  {
    name: 'net.cidr_contains',
    fn: (args) => cidrContains(args[0]!, args[1]!),
  },
  {
    name: 'net.cidr_overlap',
    fn: (args) => cidrContains(args[0]!, args[1]!),
  },
  {
    name: 'net.cidr_intersects',
    fn: (args) => {
      const a = cidrOf(stringArg(args, 0));
      const b = cidrOf(stringArg(args, 1));
      return netContains(a, { v4: b.v4, addr: b.addr }) || netContains(b, { v4: a.v4, addr: a.addr });
    },
  },
  {
    name: 'net.cidr_is_valid',
    fn: (args) => typeof args[0] === 'string' && parseCIDR(args[0]) !== undefined,
  },
  {
    name: 'net.cidr_expand',
    fn: (args) => {
      const n = cidrOf(stringArg(args, 0));
      const out = new RSet();
      const last = netLast(n);
      for (let a = n.addr; a <= last; a++) out.add(ipString({ v4: n.v4, addr: a }));
      return out;
    },
  },
  {
    name: 'net.cidr_contains_matches',
    fn: (args) => {
      const out = new RSet();
      const bs = matchOperand(args[1]!);
      for (const [c1, k1] of matchOperand(args[0]!)) {
        for (const [c2, k2] of bs) if (cidrContains(c1, c2)) out.add([k1, k2]);
      }
      return out;
    },
  },
  {
    name: 'net.cidr_merge',
    fn: (args) => {
      const v = args[0]!;
      let items: Value[];
      if (Array.isArray(v)) items = v;
      else if (v instanceof RSet) items = v.values();
      else throw operandError(1, 'one of {array, set}', v);
      const nets = items.map((x): IPNet => {
        if (typeof x !== 'string') throw builtinError('element must be string');
        const ip = parseIP(x);
        if (!ip) return cidrOf(x);
        if (!ip.v4) throw builtinError('IPv6 invalid: needs prefix length');
        const bits = defaultMaskBits(ip);
        return { v4: true, bits, addr: ip.addr & ~((1n << BigInt(32 - bits)) - 1n) };
      });
      return RSet.from(mergeNets(nets).map(netString));
    },
  },
  {
    name: 'net.lookup_ip_addr',
    impure: true,
    fn: (args, ctx) => lookupIPAddr(stringArg(args, 0), ctx),
  },
];

registerBuiltins(defs);
