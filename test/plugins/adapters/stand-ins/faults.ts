// Faults a stand-in API can be told to answer with, one per request, in order: the next
// requests get them before the stand-in answers normally again.

import type http from 'node:http';

export type Fault =
  | { status: 429; retryAfter?: string }
  | { status: 500 | 502 | 503 | 504; body?: string }
  | { hang: true }
  | { malformed: true }
  | { edn: true }
  | { reset: true };

/** Answers with the fault; returns false when the stand-in should answer normally. */
export function applyFault(queue: Fault[], res: http.ServerResponse): boolean {
  const f = queue.shift();
  if (!f) return false;
  if ('hang' in f) return true; // never answers: the client's header timeout must fire
  if ('reset' in f) {
    res.socket?.destroy();
    return true;
  }
  if ('malformed' in f) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"responses": [ {"request": ');
    return true;
  }
  if ('edn' in f) {
    res.writeHead(200, { 'content-type': 'application/edn' });
    res.end('{:message "hello" :jobs [{:build_num 1}]}');
    return true;
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (f.status === 429 && f.retryAfter !== undefined) headers['retry-after'] = f.retryAfter;
  res.writeHead(f.status, headers);
  res.end(JSON.stringify({ message: 'body' in f && f.body ? f.body : f.status === 429 ? 'rate limit exceeded' : 'internal error' }));
  return true;
}
