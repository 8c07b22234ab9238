// The input document of the authorization policy, as OPA builds it for every request:
// method (upper case), path (the URL path split on "/" and each segment unescaped, so
// "/v1/data/a%2Fb" is ["v1", "data", "a/b"]), params (query parameters, each a list),
// headers (canonical names, each a list), body (the parsed body, only for POST to the data
// API and to "/"), identity and client_certificates (from authentication).

import type { IncomingMessage } from 'node:http';
import type { Value } from '../../value/index.js';

export class InputError extends Error {}

export function pathSegments(rawPath: string): string[] {
  if (rawPath === '') return [];
  return rawPath
    .slice(1)
    .split('/')
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        throw new InputError(`invalid URL escape in path: ${JSON.stringify(p)}`);
      }
    });
}

/** Go's canonical MIME header key: content-type -> Content-Type. */
export function canonicalHeader(name: string): string {
  return name.replace(/[A-Za-z0-9]+/g, (w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase());
}

export function headersOf(inc: IncomingMessage): Record<string, Value> {
  const out: Record<string, string[]> = {};
  const raw = inc.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) (out[canonicalHeader(raw[i]!)] ??= []).push(raw[i + 1]!);
  return out;
}

export function paramsOf(query: string): Record<string, Value> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(query)) (out[k] ??= []).push(v);
  return out;
}

/** Whether OPA reads the body for the authorization input: POST to "/" or to /v0|v1/data/... */
export function expectsBody(method: string, path: string[]): boolean {
  if (method !== 'POST') return false;
  if (path.length === 1) return path[0] === '';
  return path.length >= 2 && (path[0] === 'v0' || path[0] === 'v1') && path[1] === 'data';
}
