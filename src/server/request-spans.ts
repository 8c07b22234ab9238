// The seam for a span per HTTP request (src/runtime/tracing installs it when
// distributed_tracing is configured). With nothing installed the listener is returned as
// it is: the request path does nothing extra.

import type { IncomingMessage, RequestListener } from 'node:http';

/** Wraps the server's request listener; `label` gives a request's route (OPA's "v1/data", ...) once answered. */
export type RequestSpans = (listener: RequestListener, label: (inc: IncomingMessage) => string | undefined) => RequestListener;

let installed: RequestSpans | undefined;

export const requestSpans = (): RequestSpans | undefined => installed;

export function setRequestSpans(s: RequestSpans | undefined): void {
  installed = s;
}
