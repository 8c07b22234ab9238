// The client's address as OPA writes it into decision events (`requested_by`): Go's
// http.Request.RemoteAddr, "ip:port", with IPv6 addresses in brackets.

import type { RequestHead } from './body.js';

/** `env`: Hono's node-server bindings, or any `{ incoming }` holding a request's head. */
export function remoteAddr(env: { incoming?: RequestHead } | undefined): string | undefined {
  const socket = env?.incoming?.socket;
  let ip = socket?.remoteAddress;
  if (!ip || socket?.remotePort === undefined) return undefined;
  // A dual-stack listener reports IPv4 clients as IPv4-mapped IPv6; Go shows them as IPv4.
  if (ip.startsWith('::ffff:') && ip.includes('.')) ip = ip.slice(7);
  return `${ip.includes(':') ? `[${ip}]` : ip}:${socket.remotePort}`;
}
