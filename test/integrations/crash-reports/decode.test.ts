// The crash report decoder: a Tombstone with every field of every message set decodes to the
// documented JSON document (64-bit values exact), fields the .proto does not know (reserved
// or not, at any depth) are reported and never fatal, and anything that is not a Tombstone
// (random bytes, every truncation, flipped bytes, huge lengths, deep groups) is a
// TombstoneError within a time bound: never another exception, never a hang.

import fc from 'fast-check';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { decodeTombstone, TombstoneError, tombstoneProtoText } from '../../../src/integrations/crash-reports/decode.js';
import { BIG, encode, FULL, FULL_DOCUMENT, fullBuffer, root, TID, Tombstone, withField } from './fixtures.js';

/**
 * CPU time this process has used (ms). The time bounds are on it, not on the wall clock: on a
 * loaded machine the wall clock also counts the time other processes ran meanwhile (a 500 ms
 * bound on one decode was passed under stress-ng with no slow decode).
 */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Decodes, or returns the error; fails the test on any error but a TombstoneError, or a slow one. */
function attempt(buf: Uint8Array, boundMs = 1000): Record<string, unknown> | TombstoneError {
  const t0 = cpuMs();
  let out: Record<string, unknown> | TombstoneError;
  try {
    out = decodeTombstone(buf);
  } catch (e) {
    if (!(e instanceof TombstoneError)) throw new Error(`not a TombstoneError for ${Buffer.from(buf).toString('hex').slice(0, 200)}: ${String(e)}`);
    expect(e.message).toMatch(/^crash report is not a valid Tombstone: \S/);
    out = e;
  }
  const ms = cpuMs() - t0;
  if (ms > boundMs) throw new Error(`decoding took ${ms.toFixed(0)} ms of CPU (bound ${boundMs} ms)`);
  return out;
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v));

describe('decodeTombstone: every field', () => {
  it('decodes the full fixture to the documented document', () => {
    expect(json(decodeTombstone(fullBuffer()))).toEqual(json(FULL_DOCUMENT));
  });

  it('keeps 64-bit values exact: addresses as lower-case hex, tids and int64 as decimal strings', () => {
    const doc = decodeTombstone(fullBuffer()) as any;
    expect(doc.signal_info.fault_address).toBe('0xffffff8012345678');
    expect(Number(doc.signal_info.fault_address)).not.toBe(0); // a string, not a rounded number
    expect(BigInt(doc.signal_info.fault_address)).toBe(0xffffff8012345678n);
    const t = doc.threads[String(TID)];
    expect(t.registers[0]).toEqual({ name: 'x0', u64: BIG.x0 });
    expect(t.current_backtrace[0].pc).toBe('0x7fffffffffffff01');
    expect(t.current_backtrace[0].sp).toBe('0xfffffffffffffff0');
    expect(t.tagged_addr_ctrl).toBe('-9223372036854775807');
    expect(t.pac_enabled_keys).toBe('15');
    expect(doc.open_fds[0].tag).toBe('0xfeedfacecafebeef');
    expect(doc.memory_mappings[0].load_bias).toBe('0x20000000000001');
    expect(doc.memory_mappings[0].end_address).toBe('0xffffffffff600000');
    expect(doc.causes[0].memory_error.heap.allocation_tid).toBe('18446744073709551614');
    expect(doc.stack_history_buffer.tid).toBe('18446744073709551601');
    // every 64-bit string in the document round-trips to the value encoded
    const hexes = JSON.stringify(doc).match(/"0x[0-9a-f]+"/g)!;
    expect(hexes.length).toBeGreaterThan(50);
    for (const h of hexes) expect(`"0x${BigInt(JSON.parse(h)).toString(16)}"`).toBe(h);
  });

  it('covers every field of every message of the .proto with a non-default value', () => {
    const seen = new Set<string>();
    const isDefault = (v: unknown) => v === '' || v === 0 || v === false || v === '0x0' || v === '0' || (Array.isArray(v) && v.length === 0) || (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);
    const walk = (v: any, type: protobuf.Type) => {
      for (const f of type.fieldsArray) {
        const x = v[f.name];
        if (x === undefined || isDefault(x)) continue;
        seen.add(`${type.name}.${f.name}`);
        const sub = f.resolvedType instanceof protobuf.Type ? f.resolvedType : undefined;
        if (!sub) continue;
        const items = f.map ? Object.values(x) : f.repeated ? x : [x];
        for (const i of items as any[]) walk(i, sub);
      }
    };
    walk(decodeTombstone(fullBuffer()), Tombstone);
    const all: string[] = [];
    const types = (ns: protobuf.NamespaceBase): protobuf.Type[] => ns.nestedArray.flatMap((n) => (n instanceof protobuf.Type ? [n, ...types(n)] : n instanceof protobuf.Namespace ? types(n) : []));
    for (const t of types(root)) for (const f of t.fieldsArray) all.push(`${t.name}.${f.name}`);
    expect(all.length).toBe(97);
    expect(all.filter((k) => !seen.has(k))).toEqual([]);
  });

  it('the .proto has every message, enum and the reserved ranges of the seed', () => {
    const names = root.nestedArray.map((n) => n.name).sort();
    expect(names).toEqual(['Architecture', 'ArmMTEMetadata', 'BacktraceFrame', 'Cause', 'CrashDetail', 'FD', 'HeapObject', 'LogBuffer', 'LogMessage', 'MemoryDump', 'MemoryError', 'MemoryMapping', 'Register', 'Signal', 'StackHistoryBuffer', 'StackHistoryBufferEntry', 'Thread', 'Tombstone']);
    const reserved = (n: string) => (root.lookup(n) as protobuf.Type | protobuf.Enum).reserved;
    expect(reserved('Tombstone')).toEqual([[27, 999]]);
    expect(reserved('Signal')).toEqual([[11, 999]]);
    expect(reserved('MemoryDump')).toEqual([[5, 5], [7, 999]]);
    expect(reserved('MemoryError')).toEqual([[4, 999]]);
    expect(reserved('Architecture')).toEqual([[6, 999]]);
    expect(reserved('MemoryError.Tool')).toEqual([[2, 999]]);
    expect(reserved('MemoryError.Type')).toEqual([[6, 999]]);
    expect(reserved('ArmMTEMetadata')).toEqual([[2, 999]]);
    expect(root.lookupType('Tombstone').fields['threads']!.map).toBe(true);
    expect(root.lookupType('MemoryDump').oneofs['metadata']!.fieldsArray.map((f) => f.id)).toEqual([6]);
    expect(tombstoneProtoText()).toMatch(/syntax = "proto3";/);
  });

  it('gives absent scalars their proto3 defaults, empty lists and maps, and leaves absent messages out', () => {
    const doc = decodeTombstone(encode({ tid: 7, causes: [{ human_readable: 'x' }] })) as any;
    expect(doc).toMatchObject({ arch: 'ARM32', guest_arch: 'ARM32', build_fingerprint: '', pid: 0, tid: 7, command_line: [], threads: {}, guest_threads: {}, has_been_16kb_mode: false, _unknown_fields: [] });
    expect('signal_info' in doc).toBe(false);
    expect('stack_history_buffer' in doc).toBe(false);
    expect(doc.causes).toEqual([{ human_readable: 'x' }]);
    const t = decodeTombstone(encode({ tid: 1, threads: { 1: { id: 1 } } })) as any;
    expect(t.threads['1']).toEqual({ id: 1, name: '', registers: [], current_backtrace: [], memory_dump: [], tagged_addr_ctrl: '0', backtrace_note: [], pac_enabled_keys: '0', unreadable_elf_files: [] });
    const f = decodeTombstone(encode({ tid: 1, open_fds: [{ fd: 1 }], crash_details: [{}] })) as any;
    expect(f.open_fds[0].tag).toBe('0x0');
    expect(f.crash_details[0]).toEqual({ name: '', data: '', name_text: '', data_text: '' });
  });

  it('keeps an enum number the .proto does not name as a number', () => {
    const buf = withField(encode({ tid: 1 }), 1, 0, (w) => w.uint32(77));
    expect((decodeTombstone(buf) as any).arch).toBe(77);
  });
});

describe('decodeTombstone: unknown and reserved fields are reported, never fatal', () => {
  it('lists them by message path, field number, wire type and whether reserved', () => {
    const { threads: _threads, signal_info: signalInfo, ...rest } = FULL;
    let buf = encode(rest);
    // Tombstone: 11 (unused, not reserved), 500 (reserved), 999 (the last reserved), 1000 (beyond), a group
    buf = withField(buf, 11, 0, (w) => w.uint64(5));
    buf = withField(buf, 500, 2, (w) => w.bytes(Buffer.from('custom')));
    buf = withField(buf, 999, 1, (w) => w.fixed64(1));
    buf = withField(buf, 1000, 5, (w) => w.fixed32(2));
    buf = withField(buf, 13, 3, (w) => w.uint32((1 << 3) | 0).uint32(1).uint32((13 << 3) | 4));
    // Signal with 42 (reserved) and 11 (the first reserved)
    const Signal = root.lookupType('Signal');
    let sig = encode(signalInfo, Signal);
    sig = withField(sig, 42, 0, (w) => w.uint32(1));
    sig = withField(sig, 11, 2, (w) => w.string('vendor'));
    buf = withField(buf, 10, 2, (w) => w.bytes(sig));
    // a thread (map entry) whose first memory dump carries MemoryDump's reserved 5, the thread 1234
    const Thread = root.lookupType('Thread');
    const MemoryDump = root.lookupType('MemoryDump');
    const { memory_dump: dumps, ...threadRest } = FULL.threads[TID];
    let md = encode(dumps[0]!, MemoryDump);
    md = withField(md, 5, 0, (w) => w.uint32(3));
    let th = encode(threadRest, Thread);
    th = withField(th, 1234, 0, (w) => w.uint32(9));
    th = withField(th, 5, 2, (w) => w.bytes(md));
    const entry = protobuf.Writer.create().uint32((1 << 3) | 0).uint32(TID).uint32((2 << 3) | 2).bytes(th).uint32((3 << 3) | 0).uint32(1).finish();
    buf = withField(buf, 16, 2, (w) => w.bytes(entry));

    const doc = attempt(buf) as any;
    expect(doc).not.toBeInstanceOf(TombstoneError);
    expect(doc._unknown_fields).toEqual([
      { path: '', field: 11, wire_type: 0, reserved: false },
      { path: '', field: 500, wire_type: 2, reserved: true },
      { path: '', field: 999, wire_type: 1, reserved: true },
      { path: '', field: 1000, wire_type: 5, reserved: false },
      { path: '', field: 13, wire_type: 3, reserved: false },
      { path: 'signal_info', field: 42, wire_type: 0, reserved: true },
      { path: 'signal_info', field: 11, wire_type: 2, reserved: true },
      { path: `threads (map entry)`, field: 3, wire_type: 0, reserved: false },
      { path: `threads[${TID}]`, field: 1234, wire_type: 0, reserved: false },
      { path: `threads[${TID}].memory_dump[0]`, field: 5, wire_type: 0, reserved: true },
    ]);
    // everything known still decodes
    const { _unknown_fields: _u, ...known } = doc;
    const { _unknown_fields: _v, threads, ...expected } = json(FULL_DOCUMENT);
    expect(json(known)).toEqual({ ...expected, threads: { [String(TID)]: threads[String(TID)] } });
  });

  it('reports unknown fields inside repeated messages with their index', () => {
    const Cause = root.lookupType('Cause');
    const c = withField(encode({ human_readable: 'second' }, Cause), 77, 0, (w) => w.uint32(1));
    let buf = encode({ tid: 1, causes: [{ human_readable: 'first' }] });
    buf = withField(buf, 15, 2, (w) => w.bytes(c));
    const doc = decodeTombstone(buf) as any;
    expect(doc.causes.map((x: any) => x.human_readable)).toEqual(['first', 'second']);
    expect(doc._unknown_fields).toEqual([{ path: 'causes[1]', field: 77, wire_type: 0, reserved: true }]);
  });
});

describe('decodeTombstone: anything else is a clear error', () => {
  const err = (buf: Uint8Array | number[]) => {
    const r = attempt(buf instanceof Uint8Array ? buf : Uint8Array.from(buf));
    expect(r).toBeInstanceOf(TombstoneError);
    return (r as TombstoneError).message;
  };

  it('names the reason', () => {
    expect(err([])).toBe('crash report is not a valid Tombstone: the crash report is empty');
    expect(err([0x00])).toMatch(/invalid field number 0 at offset 0 in the Tombstone/);
    expect(err([0x12, 0x05, 0x41])).toMatch(/field build_fingerprint declares 5 bytes at offset 2, but only 1 remain/);
    expect(err([0x08])).toMatch(/truncated/);
    expect(err([(12 << 3) | 7])).toMatch(/invalid wire type 7 at offset 1 in the Tombstone/);
    expect(err([(12 << 3) | 4])).toMatch(/unexpected end-group tag/);
    // arch (varint) sent length-delimited
    expect(err([(1 << 3) | 2, 0x00])).toMatch(/field arch \(1\) in the Tombstone has wire type 2 at offset 0, expected 0/);
    // a Signal whose field runs past its length
    expect(err([0x52, 0x02, 0x12, 0x05, 0x41, 0x41, 0x41, 0x41, 0x41])).toMatch(/field signal_info\.name declares 5 bytes .* but only 0 remain/);
  });

  it('refuses huge length prefixes at once, without allocating', () => {
    const huge = protobuf.Writer.create().uint32((16 << 3) | 2).uint32(0xfffffff0).finish();
    expect(err(huge)).toMatch(/field threads declares 4294967280 bytes/);
    const over = protobuf.Writer.create().uint32((2 << 3) | 2).uint64(Number.MAX_SAFE_INTEGER).finish();
    expect(err(over)).toMatch(/crash report is not a valid Tombstone/);
  });

  it('refuses deeply nested groups quickly (no stack overflow, no hang)', () => {
    const deep = new Uint8Array(1_000_000).fill((13 << 3) | 3);
    expect(err(deep)).toMatch(/nesting depth|truncated/);
  });

  it('fuzz: random buffers decode or are a TombstoneError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (buf) => {
        attempt(buf, 500);
      }),
      { numRuns: 3000 },
    );
  });

  it('fuzz: random buffers made of plausible tags decode or are a TombstoneError', () => {
    const tag = fc.tuple(fc.integer({ min: 1, max: 40 }), fc.constantFrom(0, 1, 2, 5)).map(([f, w]) => [(f << 3) | w]);
    const chunk = fc.oneof(tag, fc.uint8Array({ maxLength: 4 }).map((a) => [...a]), fc.constant([0x02]));
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 200 }), (chunks) => {
        attempt(Uint8Array.from(chunks.flat()), 500);
      }),
      { numRuns: 2000 },
    );
  });

  it('fuzz: well-formed wire trees (nested messages, map entries, any field number) decode or are a TombstoneError', () => {
    type Node = { field: number; kind: 'varint' | 'fixed32' | 'fixed64' | 'bytes'; value: number; bytes: Uint8Array } | { field: number; kind: 'message'; children: Node[] };
    const { node } = fc.letrec<{ node: Node; nodes: Node[] }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.record({ field: fc.integer({ min: 1, max: 30 }), kind: fc.constantFrom('varint' as const, 'fixed32' as const, 'fixed64' as const, 'bytes' as const), value: fc.nat(), bytes: fc.uint8Array({ maxLength: 12 }) }),
        fc.record({ field: fc.integer({ min: 1, max: 30 }), kind: fc.constant('message' as const), children: tie('nodes') as fc.Arbitrary<Node[]> }),
      ),
      nodes: fc.array(tie('node') as fc.Arbitrary<Node>, { maxLength: 5 }),
    }));
    const write = (w: protobuf.Writer, n: Node): void => {
      const wt = { varint: 0, fixed64: 1, bytes: 2, message: 2, fixed32: 5 }[n.kind];
      w.uint32((n.field << 3) | wt);
      if (n.kind === 'message') {
        w.fork();
        for (const c of n.children) write(w, c);
        w.ldelim();
      } else if (n.kind === 'varint') w.uint32(n.value);
      else if (n.kind === 'fixed32') w.fixed32(n.value);
      else if (n.kind === 'fixed64') w.fixed64(n.value);
      else w.bytes(n.bytes);
    };
    let decoded = 0;
    fc.assert(
      fc.property(fc.array(node, { minLength: 1, maxLength: 8 }), (nodes) => {
        const w = protobuf.Writer.create();
        for (const n of nodes) write(w, n);
        if (!(attempt(w.finish(), 500) instanceof TombstoneError)) decoded++;
      }),
      { numRuns: 3000 },
    );
    // the trees are well-formed: a good share of them are Tombstones (with unknown fields)
    expect(decoded).toBeGreaterThan(100);
  });

  it('a map entry without its key or value is the default key and an empty thread', () => {
    const empty = withField(encode({ tid: 1 }), 16, 2, (w) => w.bytes(new Uint8Array()));
    const keyOnly = withField(encode({ tid: 1 }), 25, 2, (w) => w.bytes(protobuf.Writer.create().uint32(8).uint32(5).finish()));
    expect(Object.keys((decodeTombstone(empty) as any).threads)).toEqual(['0']);
    expect((decodeTombstone(keyOnly) as any).guest_threads['5']).toMatchObject({ id: 0, name: '', current_backtrace: [] });
  });

  it('every truncation of the full fixture decodes or is a TombstoneError', () => {
    const full = fullBuffer();
    expect(full.length).toBeGreaterThan(2000);
    let errors = 0;
    const t0 = cpuMs();
    for (let n = 0; n < full.length; n++) if (attempt(full.subarray(0, n), 500) instanceof TombstoneError) errors++;
    // most cuts fall inside a field; a cut between top-level fields is a shorter Tombstone
    expect(errors).toBeGreaterThan(full.length * 0.9);
    expect(cpuMs() - t0).toBeLessThan(20_000);
  });

  it('fuzz: flipped and inserted bytes in the full fixture decode or are a TombstoneError', () => {
    const full = fullBuffer();
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(full.length - 1), fc.integer({ min: 0, max: 255 }), fc.boolean()), { minLength: 1, maxLength: 8 }), (edits) => {
        const b = [...full];
        for (const [at, v, insert] of edits) {
          if (insert) b.splice(at, 0, v);
          else b[at] = v;
        }
        attempt(Uint8Array.from(b), 500);
      }),
      { numRuns: 1500 },
    );
  });
});
