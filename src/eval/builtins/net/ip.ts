// IP addresses and CIDR networks parsed and printed as Go's net and net/netip packages do.
// Addresses are bigints; an IPv4-mapped IPv6 address is treated as IPv4 (Go's To4).

export interface IP {
  v4: boolean;
  addr: bigint;
}

export interface IPNet {
  v4: boolean;
  /** The network number (address with host bits cleared). */
  addr: bigint;
  /** Prefix length. */
  bits: number;
}

const V4_MAPPED_PREFIX = 0xffffn; // bits 32..47 of ::ffff:a.b.c.d

function parseV4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0n;
  for (const p of parts) {
    // netip rejects empty fields, more than 3 digits and leading zeros.
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    n = (n << 8n) | BigInt(v);
  }
  return n;
}

function parseV6(s: string): bigint | undefined {
  if (s.includes('%')) return undefined; // zones are not accepted here
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string): bigint[] | undefined => {
    if (part === '') return [];
    const out: bigint[] = [];
    const fields = part.split(':');
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      if (i === fields.length - 1 && f.includes('.')) {
        const v4 = parseV4(f);
        if (v4 === undefined) return undefined;
        out.push(v4 >> 16n, v4 & 0xffffn);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(f)) return undefined;
      out.push(BigInt('0x' + f));
    }
    return out;
  };
  const head = groups(halves[0]!);
  if (!head) return undefined;
  let all: bigint[];
  if (halves.length === 2) {
    const tail = groups(halves[1]!);
    if (!tail) return undefined;
    const fill = 8 - head.length - tail.length;
    if (fill < 1) return undefined;
    all = [...head, ...Array<bigint>(fill).fill(0n), ...tail];
  } else all = head;
  if (all.length !== 8) return undefined;
  return all.reduce((acc, g) => (acc << 16n) | g, 0n);
}

/** Parses an address; `raw` keeps IPv4-mapped IPv6 as IPv6 (for prefix lengths). */
export function parseAddr(s: string): { v4: boolean; addr: bigint } | undefined {
  if (s.includes(':')) {
    const a = parseV6(s);
    return a === undefined ? undefined : { v4: false, addr: a };
  }
  const a = parseV4(s);
  return a === undefined ? undefined : { v4: true, addr: a };
}

/** Go's net.ParseIP followed by To4 where it applies. */
export function parseIP(s: string): IP | undefined {
  const a = parseAddr(s);
  if (!a) return undefined;
  if (!a.v4 && a.addr >> 32n === V4_MAPPED_PREFIX) return { v4: true, addr: a.addr & 0xffffffffn };
  return a;
}

export function hostMask(v4: boolean, bits: number): bigint {
  const width = v4 ? 32 : 128;
  return (1n << BigInt(width - bits)) - 1n;
}

export function netLast(n: IPNet): bigint {
  return n.addr | hostMask(n.v4, n.bits);
}

/** Go's net.ParseCIDR; undefined when invalid. */
export function parseCIDR(s: string): { ip: IP; net: IPNet } | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const a = parseAddr(s.slice(0, slash));
  const mask = s.slice(slash + 1);
  if (!a || !/^\d+$/.test(mask) || mask.length > 6) return undefined;
  let bits = Number(mask);
  if (bits > (a.v4 ? 32 : 128)) return undefined;
  let ip: IP = a;
  if (!a.v4 && a.addr >> 32n === V4_MAPPED_PREFIX) {
    // Go's networkNumberAndMask views a mapped network through its last 4 bytes.
    ip = { v4: true, addr: a.addr & 0xffffffffn };
    bits = Math.max(0, bits - 96);
  }
  const net: IPNet = { v4: ip.v4, bits, addr: ip.addr & ~hostMask(ip.v4, bits) };
  return { ip, net };
}

export function netContains(n: IPNet, ip: IP): boolean {
  if (n.v4 !== ip.v4) return false;
  return (ip.addr & ~hostMask(n.v4, n.bits)) === n.addr;
}

/** Go's IP.String: dotted IPv4, RFC 5952 IPv6. */
export function ipString(ip: IP): string {
  if (ip.v4) {
    const a = ip.addr;
    return [24n, 16n, 8n, 0n].map((s) => String((a >> s) & 0xffn)).join('.');
  }
  const g: number[] = [];
  for (let i = 7; i >= 0; i--) g.push(Number((ip.addr >> BigInt(i * 16)) & 0xffffn));
  // Longest run of zero groups (at least two) is written "::"; the first wins a tie.
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (xs: number[]) => xs.map((x) => x.toString(16)).join(':');
  if (best < 0) return hex(g);
  return hex(g.slice(0, best)) + '::' + hex(g.slice(best + bestLen));
}

export function netString(n: IPNet): string {
  return ipString({ v4: n.v4, addr: n.addr }) + '/' + n.bits;
}

/** Go's IP.DefaultMask for IPv4 (classful): /8, /16 or /24. */
export function defaultMaskBits(ip: IP): number {
  const first = Number(ip.addr >> 24n);
  return first < 0x80 ? 8 : first < 0xc0 ? 16 : 24;
}

/** The smallest set of networks covering exactly the union of the given ones. */
export function mergeNets(nets: IPNet[]): IPNet[] {
  const out: IPNet[] = [];
  for (const v4 of [true, false]) {
    const ranges = nets
      .filter((n) => n.v4 === v4)
      .map((n) => [n.addr, netLast(n)] as [bigint, bigint])
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const merged: [bigint, bigint][] = [];
    for (const r of ranges) {
      const last = merged[merged.length - 1];
      if (last && r[0] <= last[1] + 1n) {
        if (r[1] > last[1]) last[1] = r[1];
      } else merged.push([r[0], r[1]]);
    }
    const width = v4 ? 32 : 128;
    for (const range of merged) {
      let start = range[0];
      const end = range[1];
      // Split the range into the largest aligned blocks.
      while (start <= end) {
        let size = 0;
        while (size < width) {
          const next = 1n << BigInt(size + 1);
          if (start % next !== 0n || start + next - 1n > end) break;
          size++;
        }
        out.push({ v4, addr: start, bits: width - size });
        start += 1n << BigInt(size);
      }
    }
  }
  return out;
}
