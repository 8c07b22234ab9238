// Writing JSON responses as OPA does: compact or two-space indented, a trailing newline,
// envelope fields in OPA's order, Rego values through toJSONText (sets, big numbers), and
// gzip when the client accepts it and the body is longer than the configured minimum.

import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { toJSONText, type Value } from '../value/index.js';
import { toResponse, type Reply } from './reply.js';

const gzipAsync = promisify(gzip);

export interface GzipSettings {
  minLength: number;
  level: number;
}

/** Serialises an object's fields in the given order; undefined fields are omitted. */
export function envelope(fields: [string, Value | undefined][], pretty: boolean): string {
  const parts: string[] = [];
  for (const [k, v] of fields) {
    if (v === undefined) continue;
    const text = pretty ? toJSONText(v, 2).replaceAll('\n', '\n  ') : toJSONText(v);
    parts.push(JSON.stringify(k) + (pretty ? ': ' : ':') + text);
  }
  if (parts.length === 0) return '{}';
  return pretty ? '{\n  ' + parts.join(',\n  ') + '\n}' : '{' + parts.join(',') + '}';
}

export function valueText(v: Value, pretty: boolean): string {
  return pretty ? toJSONText(v, 2) : toJSONText(v);
}

function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  for (const part of header.split(',')) {
    const p = part.trim();
    if (p === 'gzip' || p.startsWith('gzip;')) return true;
  }
  return false;
}

export interface SendOptions {
  status?: number;
  /** Set for endpoints OPA compresses (data and compile): adds Vary and may gzip. */
  gzip?: { settings: GzipSettings; acceptEncoding: string | undefined };
  /** Media type of the body (default application/json), e.g. a data-filtering target's. */
  contentType?: string;
}

/** A JSON reply with OPA's trailing newline (gzipped when asked for and long enough). */
export function encodeJSON(text: string, opts: SendOptions = {}): Reply | Promise<Reply> {
  const status = opts.status ?? 200;
  const body = text + '\n';
  const type = opts.contentType ?? 'application/json';
  if (!opts.gzip) return { status, headers: { 'content-type': type }, body };
  const headers: Record<string, string> = { 'content-type': type, vary: 'Accept-Encoding' };
  // Only a client that accepts gzip makes the byte length matter.
  if (!acceptsGzip(opts.gzip.acceptEncoding) || body.length * 3 <= opts.gzip.settings.minLength) return { status, headers, body };
  const buf = Buffer.from(body, 'utf8');
  if (buf.length <= opts.gzip.settings.minLength) return { status, headers, body };
  headers['content-encoding'] = 'gzip';
  return gzipAsync(buf, { level: opts.gzip.settings.level }).then((z) => ({ status, headers, body: z }));
}

/** A JSON response with OPA's trailing newline. */
export async function sendJSON(text: string, opts: SendOptions = {}): Promise<Response> {
  return toResponse(await encodeJSON(text, opts));
}

export function noContent(status = 204): Response {
  return new Response(null, { status });
}
