// Request bodies: size limits before and after gzip, gzip decoding, and JSON / YAML
// decoding into Rego values with bounded nesting. Every failure is a 400, never a crash.

import { gunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { parseJSON, readNeeded, JSONParseError, type JSONNeeds } from '../value/index.js';
import { newPlainObject, type PlainObject, type Value } from '../value/index.js';
import { Msg, badRequest, HttpError } from './errors.js';

const gunzipAsync = promisify(gunzip);

export interface BodyLimits {
  /** server.decoding.max_length: bytes read from the wire (OPA default 256 MiB). */
  maxLength: number;
  /** server.decoding.gzip.max_length: bytes after decompression (OPA default 512 MiB). */
  gzipMaxLength: number;
  /** Deepest nesting accepted in a JSON or YAML document. */
  maxDepth: number;
}

export const DEFAULT_LIMITS: BodyLimits = {
  maxLength: 268_435_456,
  gzipMaxLength: 536_870_912,
  maxDepth: 1000,
};

/**
 * What the server reads of a request besides its body: Node's IncomingMessage, or the
 * plain object of a request read below Node's HTTP layer (raw-decisions.ts).
 */
export type RequestHead = Pick<IncomingMessage, 'method' | 'url' | 'headers' | 'socket'>;

/** The Node request behind a Hono request when served by @hono/node-server (c.env.incoming). */
export function nodeIncoming(env: unknown): IncomingMessage | undefined {
  const inc = (env as { incoming?: unknown } | undefined)?.incoming;
  return inc instanceof Readable ? (inc as IncomingMessage) : undefined;
}

/** A request header, read from the Node request when there is one (building web Headers costs). */
export function headerOf(req: Request | undefined, incoming: RequestHead | undefined, name: string): string | undefined {
  if (incoming) {
    const v = incoming.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  }
  return req?.headers.get(name) ?? undefined;
}

const EMPTY = Buffer.alloc(0);

/**
 * Collects a Node request's body (not yet read by anyone) and calls `done` once, with the
 * bytes or a 400. Reading straight from the Node stream is much cheaper than a web
 * ReadableStream, and a callback (rather than a promise) lets the decision fast path
 * answer in the tick the last chunk arrived.
 */
/** A body already read from the stream (by the authorization gate), for the route to use. */
export const PREREAD: unique symbol = Symbol('regolith.preread');

function preread(inc: IncomingMessage | undefined): Buffer | undefined {
  return inc ? (inc as unknown as Record<symbol, Buffer | undefined>)[PREREAD] : undefined;
}

export function collectBody(inc: IncomingMessage, limits: BodyLimits, done: (err: HttpError | undefined, body: Buffer) => void): void {
  const pre = preread(inc);
  if (pre) {
    done(undefined, pre);
    return;
  }
  const declared = inc.headers['content-length'];
  if (declared !== undefined && Number(declared) > limits.maxLength) {
    inc.resume(); // drain and discard
    done(badRequest(Msg.decodingLimit), EMPTY);
    return;
  }
  if (inc.readableEnded) {
    done(undefined, EMPTY);
    return;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  // A flag rather than removing the three listeners: cheaper per request, and nothing
  // after the first outcome (a late 'error' after 'end', say) can call `done` again.
  let finished = false;
  inc.on('data', (chunk: Buffer) => {
    if (finished) return;
    total += chunk.length;
    if (total > limits.maxLength) {
      finished = true;
      chunks.length = 0; // what was read is garbage now, not held until the request is
      inc.resume(); // drain and discard the rest
      done(badRequest(Msg.decodingLimit), EMPTY);
      return;
    }
    chunks.push(chunk);
  });
  inc.on('end', () => {
    if (finished) return;
    finished = true;
    done(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
  });
  inc.on('error', (e: Error) => {
    if (finished) return;
    finished = true;
    done(badRequest(`error reading the body: ${e.message}`), EMPTY);
  });
}

function readIncoming(inc: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => collectBody(inc, limits, (err, body) => (err ? reject(err) : resolve(body))));
}

/** Reads the raw body, refusing more than maxLength bytes (declared or actually sent). */
export async function readRaw(req: Request | undefined, limits: BodyLimits, incoming?: IncomingMessage): Promise<Buffer> {
  const pre = preread(incoming);
  if (pre) return pre;
  // An unread Node request: collectBody checks the declared length itself.
  if (incoming && incoming.readableFlowing === null) return readIncoming(incoming, limits);
  if (incoming?.readableEnded) return Buffer.alloc(0);
  const declared = headerOf(req, incoming, 'content-length');
  if (declared !== undefined && Number(declared) > limits.maxLength) throw badRequest(Msg.decodingLimit);
  if (!req?.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limits.maxLength) {
      await reader.cancel().catch(() => {});
      throw badRequest(Msg.decodingLimit);
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength) : Buffer.concat(chunks);
}

/** Reads the body and gunzips it when Content-Encoding says gzip. */
export async function readBody(
  req: Request | undefined,
  limits: BodyLimits,
  prefix = 'could not decompress the body',
  incoming?: IncomingMessage,
): Promise<Buffer> {
  const raw = await readRaw(req, limits, incoming);
  return isGzipped(req, incoming) ? gunzipBody(raw, limits, prefix) : raw;
}

/** Whether Content-Encoding says the body is gzipped. */
export function isGzipped(req: Request | undefined, incoming?: RequestHead): boolean {
  const enc = headerOf(req, incoming, 'content-encoding');
  return enc !== undefined && enc.includes('gzip');
}

/** Gunzips a request body within gzipMaxLength; failures are 400s prefixed with `prefix`. */
export async function gunzipBody(raw: Buffer, limits: BodyLimits, prefix = 'could not decompress the body'): Promise<Buffer> {
  try {
    return await gunzipAsync(raw, { maxOutputLength: limits.gzipMaxLength });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      throw badRequest(Msg.decodingGzipLimit);
    }
    throw badRequest(`${prefix}: ${(e as Error).message}`);
  }
}

export function isYAML(req: Request | undefined, incoming?: RequestHead): boolean {
  return (headerOf(req, incoming, 'content-type') ?? '').includes('yaml');
}

/** Decodes a JSON document; undefined for an empty (or blank) body, as Go's decoder reports EOF. */
export function decodeJSON(buf: Buffer, limits: BodyLimits): Value | undefined {
  const text = buf.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return parseJSON(text, { maxDepth: limits.maxDepth });
  } catch (e) {
    if (e instanceof JSONParseError) throw new DecodeError(e.message);
    throw e;
  }
}

/** decodeJSON building only the parts `needs` names (the rest is checked, not built). */
export function decodeJSONSparse(buf: Buffer, limits: BodyLimits, needs: JSONNeeds): Value | undefined {
  const text = buf.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return readNeeded(text, needs, { maxDepth: limits.maxDepth });
  } catch (e) {
    if (e instanceof JSONParseError) throw new DecodeError(e.message);
    throw e;
  }
}

/** Decodes a YAML document (YAML 1.2 core schema) into JSON values. */
export function decodeYAML(buf: Buffer, limits: BodyLimits): Value | undefined {
  if (buf.length === 0) return undefined;
  let v: unknown;
  try {
    v = yaml.load(buf.toString('utf8'), { schema: yaml.CORE_SCHEMA });
  } catch (e) {
    throw new DecodeError((e as Error).message.split('\n')[0]!);
  }
  if (v === undefined) return undefined;
  // Aliases can make a small text into a huge tree; cap the nodes as well as the depth.
  const budget = { nodes: Math.max(100_000, buf.length * 10) };
  return toValue(v, 0, limits.maxDepth, budget);
}

export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

function toValue(v: unknown, depth: number, maxDepth: number, budget: { nodes: number }): Value {
  if (--budget.nodes < 0) throw new DecodeError('document too large after expanding aliases');
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new DecodeError(`unsupported number ${String(v)}`);
    return v === 0 ? 0 : v;
  }
  if (depth >= maxDepth) throw new DecodeError(`document nested deeper than ${maxDepth} levels`);
  if (Array.isArray(v)) return v.map((x) => toValue(x, depth + 1, maxDepth, budget));
  if (typeof v === 'object') {
    const o: PlainObject = newPlainObject();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) o[k] = toValue(x, depth + 1, maxDepth, budget);
    return o;
  }
  throw new DecodeError(`unsupported value of type ${typeof v}`);
}

/** Decodes a body as YAML or JSON by its Content-Type; wraps decode errors with `prefix`. */
export function decodeDocument(
  req: Request | undefined,
  buf: Buffer,
  limits: BodyLimits,
  prefix: string,
  incoming?: RequestHead,
  /** For a JSON body: build only these parts of it. */
  needs?: JSONNeeds,
): Value | undefined {
  try {
    if (isYAML(req, incoming)) return decodeYAML(buf, limits);
    return needs ? decodeJSONSparse(buf, limits, needs) : decodeJSON(buf, limits);
  } catch (e) {
    if (e instanceof DecodeError) throw badRequest(`${prefix}: ${e.message}`);
    throw e;
  }
}

export { HttpError };
