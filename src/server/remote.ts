// The client's address as OPA writes it into decision events (`requested_by`): Go's
// http.Request.RemoteAddr, "ip:port", with IPv6 addresses in brackets.

import type { RequestHead } from './body.js';

/**
 * Each connection's text, made at its first request: a connection's peer never changes, and
 * making it (two getters, a check, a template) cost a logged decision ~0.3 µs every time.
 */
const byConnection = new WeakMap<object, string>();

/** `env`: Hono's node-server bindings, or any `{ incoming }` holding a request's head. */
export function remoteAddr(env: { incoming?: RequestHead } | undefined): string | undefined {
  const socket = env?.incoming?.socket;
  if (!socket) return undefined;
  const known = byConnection.get(socket);
  if (known !== undefined) return known;
  let ip = socket.remoteAddress;
  if (!ip || socket.remotePort === undefined) return undefined;
  // A dual-stack listener reports IPv4 clients as IPv4-mapped IPv6; Go shows them as IPv4.
  if (ip.startsWith('::ffff:') && ip.includes('.')) ip = ip.slice(7);
  const text = `${ip.includes(':') ? `[${ip}]` : ip}:${socket.remotePort}`;
  byConnection.set(socket, text);
  return text;
}
