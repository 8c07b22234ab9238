// A listener that cannot start ends `regolith run` with OPA's message (Go's net error text),
// whether the process listens itself or a worker does (the primary shows the worker's).

import { TLSConfigError } from '../server/index.js';
import { ExitError } from './errors.js';

const LISTEN_CODES = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL', 'ENOTFOUND']);

/** The ExitError for a failed start of the listener on `addr`; undefined for other errors. */
export function listenFailure(e: unknown, addr: string | undefined): ExitError | undefined {
  if (e instanceof TLSConfigError) return new ExitError(e.message);
  const err = e as NodeJS.ErrnoException;
  if (!err || !LISTEN_CODES.has(err.code ?? '')) return undefined;
  return new ExitError(`listen tcp ${addr}: ${err.code === 'EADDRINUSE' ? 'bind: address already in use' : err.message}`);
}
