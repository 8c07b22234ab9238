// Crash report fixtures, ENCODED with protobufjs from the shipped tombstone.proto: a
// use-after-free caught by memory tagging with every field of every message set (both maps,
// every one-of, every enum non-zero where it can be, 64-bit values above 2^53), and the
// document the decoder must make of it.

import protobuf from 'protobufjs';
import { tombstoneRoot } from '../../../src/integrations/crash-reports/decode.js';

export const root = tombstoneRoot();
export const Tombstone = root.lookupType('Tombstone');

/** A 64-bit value for protobufjs's fromObject (decimal string: exact, unlike a number). */
const u = (hex: string): string => BigInt(hex).toString();
const b = (s: string): Buffer => Buffer.from(s, 'utf8');

export const FINGERPRINT = 'acme/phone/phone:15/AP3A.240905.015/12345678:user/release-keys';
export const TID = 4321;

/** Numbers above 2^53: a float64 cannot hold them, the document must. */
export const BIG = {
  fault: '0xffffff8012345678',
  x0: '0xb400007a12345670',
  pc: '0x7fffffffffffff01',
  sp: '0xfffffffffffffff0',
  fdTag: '0xfeedfacecafebeef',
  heap: '0xb00007a12345670',
  loadBias: '0x20000000000001',
};

const frame = (i: number, fn: string, file: string) => ({
  rel_pc: u(`0x${(0x1000 + i).toString(16)}`),
  pc: u(i === 0 ? BIG.pc : `0x7a0000${(0x1000 + i).toString(16)}`),
  sp: u(BIG.sp),
  function_name: fn,
  function_offset: u(`0x${(0x10 + i).toString(16)}`),
  file_name: file,
  file_map_offset: u('0x2000'),
  build_id: `b1d${i}`,
});

const crashFrames = [
  frame(0, 'Renderer::draw(Frame*)', '/data/app/com.acme/lib/arm64/librender.so'),
  frame(1, 'Renderer::flush()', '/data/app/com.acme/lib/arm64/librender.so'),
  frame(2, '', '/data/app/com.acme/lib/arm64/libfoo.so'),
  frame(3, 'Looper::pollOnce(int)', '/system/lib64/libutils.so'),
  frame(4, '__start_thread', '/apex/com.android.runtime/lib64/bionic/libc.so'),
  frame(5, 'clone', '/apex/com.android.runtime/lib64/bionic/libc.so'),
];

const dump = (name: string) => ({
  register_name: name,
  mapping_name: '[anon:scudo:primary]',
  begin_address: u('0xb400007a12345600'),
  memory: Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x01]),
  arm_mte_metadata: { memory_tags: Buffer.from([0x0b, 0x0c]) },
});

const thread = (id: number, name: string) => ({
  id,
  name,
  registers: [
    { name: 'x0', u64: u(BIG.x0) },
    { name: 'pc', u64: u(BIG.pc) },
  ],
  current_backtrace: crashFrames,
  memory_dump: [dump('x0')],
  tagged_addr_ctrl: '-9223372036854775807',
  backtrace_note: ['Function names and BuildId information is missing for some frames'],
  pac_enabled_keys: '15',
  unreadable_elf_files: ['/data/app/com.acme/base.apk!libhidden.so'],
});

/** Every field of every message set (protobufjs object form). */
export const FULL = {
  arch: 'ARM64',
  guest_arch: 'RISCV64',
  build_fingerprint: FINGERPRINT,
  revision: 'rev-7',
  timestamp: '2026-11-25 11:57:33.123456789+0000',
  pid: TID,
  tid: TID,
  uid: 10123,
  selinux_label: 'u:r:untrusted_app:s0:c123,c256,c512,c768',
  command_line: ['com.acme.app', '--render'],
  process_uptime: 42,
  signal_info: {
    number: 11,
    name: 'SIGSEGV',
    code: 9,
    code_name: 'SEGV_MTESERR',
    has_sender: true,
    sender_uid: 1000,
    sender_pid: -7,
    has_fault_address: true,
    fault_address: u(BIG.fault),
    fault_adjacent_metadata: dump(''),
  },
  abort_message: 'Scudo ERROR: use after free',
  crash_details: [
    { name: b('stack_protector'), data: b('canary 0x1234') },
    { name: Buffer.from([0xff, 0xfe]), data: Buffer.from([0xc3, 0x28]) },
  ],
  causes: [
    {
      human_readable: '[MTE]: Use After Free, 0 bytes into a 32-byte allocation at 0xb00007a12345670',
      memory_error: {
        tool: 'SCUDO',
        type: 'USE_AFTER_FREE',
        heap: {
          address: u(BIG.heap),
          size: u('0xffffffffffff0020'),
          allocation_tid: u('0xfffffffffffffffe'),
          allocation_backtrace: [frame(7, 'Frame::make()', '/data/app/com.acme/lib/arm64/librender.so')],
          deallocation_tid: '4401',
          deallocation_backtrace: [frame(8, 'Frame::release()', '/data/app/com.acme/lib/arm64/librender.so')],
        },
      },
    },
    { human_readable: 'no memory error details' },
  ],
  threads: { [TID]: thread(TID, 'RenderThread'), 4400: thread(4400, 'main') },
  guest_threads: { 4500: thread(4500, 'guest') },
  memory_mappings: [
    {
      begin_address: u('0x7a00000000'),
      end_address: u('0xffffffffff600000'),
      offset: u('0x1000'),
      read: true,
      write: true,
      execute: true,
      mapping_name: '/data/app/com.acme/lib/arm64/librender.so',
      build_id: 'b1d0',
      load_bias: u(BIG.loadBias),
    },
  ],
  log_buffers: [
    {
      name: 'main',
      logs: [{ timestamp: '11-25 11:57:33.100', pid: TID, tid: 4400, priority: 6, tag: 'libc', message: 'Fatal signal 11 (SIGSEGV)' }],
    },
  ],
  open_fds: [{ fd: 3, path: '/dev/null', owner: 'unique_fd', tag: u(BIG.fdTag) }],
  page_size: 16384,
  has_been_16kb_mode: true,
  stack_history_buffer: {
    tid: u('0xfffffffffffffff1'),
    entries: [{ addr: frame(9, 'Renderer::draw(Frame*)', '/data/app/com.acme/lib/arm64/librender.so'), fp: u('0xffffff80deadbeef'), tag: u('0xff00000000000001') }],
  },
};

export function encode(obj: Record<string, unknown>, type: protobuf.Type = Tombstone): Uint8Array {
  const err = type.verify(type.fromObject(obj));
  if (err) throw new Error(`fixture does not verify: ${err}`);
  return type.encode(type.fromObject(obj)).finish();
}

/** The full fixture, encoded. */
export const fullBuffer = (): Uint8Array => encode(FULL);

// --- what the decoder must make of it ---------------------------------------------------

const hexFrame = (i: number, fn: string, file: string) => ({
  rel_pc: `0x${(0x1000 + i).toString(16)}`,
  pc: i === 0 ? BIG.pc : `0x7a0000${(0x1000 + i).toString(16)}`,
  sp: BIG.sp,
  function_name: fn,
  function_offset: `0x${(0x10 + i).toString(16)}`,
  file_name: file,
  file_map_offset: '0x2000',
  build_id: `b1d${i}`,
});

const docDump = (name: string) => ({
  register_name: name,
  mapping_name: '[anon:scudo:primary]',
  begin_address: '0xb400007a12345600',
  memory: Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x01]).toString('base64'),
  metadata: 'arm_mte_metadata',
  arm_mte_metadata: { memory_tags: Buffer.from([0x0b, 0x0c]).toString('base64') },
});

const docFrames = crashFrames.map((f, i) => hexFrame(i, f.function_name, f.file_name));

const docThread = (id: number, name: string) => ({
  id,
  name,
  registers: [
    { name: 'x0', u64: BIG.x0 },
    { name: 'pc', u64: BIG.pc },
  ],
  current_backtrace: docFrames,
  memory_dump: [docDump('x0')],
  tagged_addr_ctrl: '-9223372036854775807',
  backtrace_note: ['Function names and BuildId information is missing for some frames'],
  pac_enabled_keys: '15',
  unreadable_elf_files: ['/data/app/com.acme/base.apk!libhidden.so'],
});

/** The input document of FULL, written out by hand. */
export const FULL_DOCUMENT = {
  arch: 'ARM64',
  guest_arch: 'RISCV64',
  build_fingerprint: FINGERPRINT,
  revision: 'rev-7',
  timestamp: '2026-11-25 11:57:33.123456789+0000',
  pid: TID,
  tid: TID,
  uid: 10123,
  selinux_label: 'u:r:untrusted_app:s0:c123,c256,c512,c768',
  command_line: ['com.acme.app', '--render'],
  process_uptime: 42,
  signal_info: {
    number: 11,
    name: 'SIGSEGV',
    code: 9,
    code_name: 'SEGV_MTESERR',
    has_sender: true,
    sender_uid: 1000,
    sender_pid: -7,
    has_fault_address: true,
    fault_address: BIG.fault,
    fault_adjacent_metadata: docDump(''),
  },
  abort_message: 'Scudo ERROR: use after free',
  crash_details: [
    { name: b('stack_protector').toString('base64'), data: b('canary 0x1234').toString('base64'), name_text: 'stack_protector', data_text: 'canary 0x1234' },
    // neither is valid UTF-8: base64 only
    { name: '//4=', data: 'wyg=' },
  ],
  causes: [
    {
      human_readable: '[MTE]: Use After Free, 0 bytes into a 32-byte allocation at 0xb00007a12345670',
      details: 'memory_error',
      memory_error: {
        tool: 'SCUDO',
        type: 'USE_AFTER_FREE',
        location: 'heap',
        heap: {
          address: BIG.heap,
          size: '0xffffffffffff0020',
          allocation_tid: '18446744073709551614',
          allocation_backtrace: [hexFrame(7, 'Frame::make()', '/data/app/com.acme/lib/arm64/librender.so')],
          deallocation_tid: '4401',
          deallocation_backtrace: [hexFrame(8, 'Frame::release()', '/data/app/com.acme/lib/arm64/librender.so')],
        },
      },
    },
    { human_readable: 'no memory error details' },
  ],
  threads: { [String(TID)]: docThread(TID, 'RenderThread'), '4400': docThread(4400, 'main') },
  guest_threads: { '4500': docThread(4500, 'guest') },
  memory_mappings: [
    {
      begin_address: '0x7a00000000',
      end_address: '0xffffffffff600000',
      offset: '0x1000',
      read: true,
      write: true,
      execute: true,
      mapping_name: '/data/app/com.acme/lib/arm64/librender.so',
      build_id: 'b1d0',
      load_bias: BIG.loadBias,
    },
  ],
  log_buffers: [
    {
      name: 'main',
      logs: [{ timestamp: '11-25 11:57:33.100', pid: TID, tid: 4400, priority: 6, tag: 'libc', message: 'Fatal signal 11 (SIGSEGV)' }],
    },
  ],
  open_fds: [{ fd: 3, path: '/dev/null', owner: 'unique_fd', tag: BIG.fdTag }],
  page_size: 16384,
  has_been_16kb_mode: true,
  stack_history_buffer: {
    tid: '18446744073709551601',
    entries: [{ addr: hexFrame(9, 'Renderer::draw(Frame*)', '/data/app/com.acme/lib/arm64/librender.so'), fp: '0xffffff80deadbeef', tag: '0xff00000000000001' }],
  },
  _unknown_fields: [],
};

/** A length-delimited field (the bytes of an embedded message) appended with the Writer. */
export function withField(buf: Uint8Array, field: number, wireType: number, write: (w: protobuf.Writer) => void): Uint8Array {
  const w = protobuf.Writer.create();
  w.uint32((field << 3) | wireType);
  write(w);
  const tail = w.finish();
  const out = new Uint8Array(buf.length + tail.length);
  out.set(buf, 0);
  out.set(tail, buf.length);
  return out;
}
