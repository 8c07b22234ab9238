// A small DER reader, enough to lay out X.509 certificates and CSRs in the shape of Go's
// crypto/x509 structs (crypto-x509.ts).

export interface Node {
  cls: number; // 0 universal, 1 application, 2 context, 3 private
  constructed: boolean;
  tag: number;
  /** Full encoding (header + content). */
  raw: Buffer;
  content: Buffer;
  children: Node[];
}

export class Asn1Error extends Error {}

export function parseDer(buf: Buffer, offset = 0): { node: Node; end: number } {
  if (offset + 2 > buf.length) throw new Asn1Error('asn1: syntax error: data truncated');
  const b0 = buf[offset]!;
  let tag = b0 & 0x1f;
  let p = offset + 1;
  if (tag === 0x1f) {
    tag = 0;
    for (;;) {
      const b = buf[p++]!;
      tag = (tag << 7) | (b & 0x7f);
      if (!(b & 0x80)) break;
    }
  }
  let len = buf[p++]!;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new Asn1Error('asn1: structure error: length too large');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[p++]!;
  }
  const end = p + len;
  if (end > buf.length) throw new Asn1Error('asn1: syntax error: data truncated');
  const constructed = (b0 & 0x20) !== 0;
  const content = buf.subarray(p, end);
  const children: Node[] = [];
  if (constructed) {
    let q = 0;
    while (q < content.length) {
      const r = parseDer(content, q);
      children.push(r.node);
      q = r.end;
    }
  }
  return { node: { cls: b0 >> 6, constructed, tag, raw: buf.subarray(offset, end), content, children }, end };
}

export function oid(n: Node): number[] {
  const c = n.content;
  const out: number[] = [];
  let v = 0;
  for (let i = 0; i < c.length; i++) {
    v = v * 128 + (c[i]! & 0x7f);
    if (!(c[i]! & 0x80)) {
      if (out.length === 0) {
        const first = v < 80 ? Math.floor(v / 40) : 2;
        out.push(first, v - first * 40);
      } else out.push(v);
      v = 0;
    }
  }
  return out;
}

export function bigint(n: Node): bigint {
  const c = n.content;
  if (c.length === 0) return 0n;
  let v = BigInt('0x' + c.toString('hex'));
  if (c[0]! & 0x80) v -= 1n << BigInt(c.length * 8);
  return v;
}

export function str(n: Node): string {
  // BMPString is UTF-16BE; the others are read as UTF-8 / Latin-1 compatible text.
  if (n.tag === 30) {
    let s = '';
    for (let i = 0; i + 1 < n.content.length; i += 2) s += String.fromCharCode(n.content.readUInt16BE(i));
    return s;
  }
  return n.content.toString('utf8');
}

/** UTCTime / GeneralizedTime as an RFC 3339 string in UTC (Go's time.Time JSON). */
export function time(n: Node): string {
  const s = n.content.toString('latin1');
  let m: RegExpExecArray | null;
  if (n.tag === 23 && (m = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)?Z$/.exec(s))) {
    const yy = Number(m[1]);
    const year = yy >= 50 ? 1900 + yy : 2000 + yy;
    return `${year}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}Z`;
  }
  if ((m = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\.\d+)?Z$/.exec(s))) {
    return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[7] ?? ''}Z`;
  }
  throw new Asn1Error('x509: malformed validity');
}

/** The bits of a BIT STRING as Go reads KeyUsage (bit i of the string sets 1 << i). */
export function keyUsageBits(n: Node): number {
  const c = n.content;
  let usage = 0;
  for (let i = 0; i < 9 && i < (c.length - 1) * 8; i++) {
    if (c[1 + (i >> 3)]! & (0x80 >> (i & 7))) usage |= 1 << i;
  }
  return usage;
}
