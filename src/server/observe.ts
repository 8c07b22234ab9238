// Per-request bookkeeping at the Node listener, outside Hono: the Prometheus duration
// (code, handler, method) and OPA-style request logging ("Received request." / "Sent
// response.", info level, per-process request id). As Hono middleware these two cost two
// async layers per request even with logging off; here they cost a clock read and a
// histogram update. Routes name their Prometheus handler with setHandler().

import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { DurationHistogram } from './duration-histogram.js';

const HANDLER = Symbol('regolith.handler');
const REQ_ID = Symbol('regolith.reqId');

type Tagged = IncomingMessage & { [HANDLER]?: string; [REQ_ID]?: number };

/** Names the Prometheus `handler` label of this request (unnamed requests are "catchall"). */
export function setHandler(incoming: IncomingMessage | undefined, label: string): void {
  if (incoming) (incoming as Tagged)[HANDLER] = label;
}

export class RequestObserver {
  private reqId = 0;

  constructor(
    private readonly durations: DurationHistogram,
    private readonly logger?: Logger,
  ) {}

  /** Start of a request: its start time (ms, performance.now()). */
  begin(inc: IncomingMessage): number {
    const start = performance.now();
    if (this.logger?.isLevelEnabled('info')) {
      const id = ++this.reqId;
      (inc as Tagged)[REQ_ID] = id;
      this.logger.info({ req_id: id, req_method: inc.method, req_path: pathOf(inc) }, 'Received request.');
    }
    return start;
  }

  /**
   * End of a request (its response is decided): records the duration, logs the response.
   * `handler` names the Prometheus label when the caller knows it (else setHandler's).
   */
  end(inc: IncomingMessage, start: number, status: number, handler?: string): void {
    const ms = performance.now() - start;
    this.durations.observe(status, handler ?? (inc as Tagged)[HANDLER] ?? 'catchall', lower(inc.method ?? ''), ms / 1000);
    const id = (inc as Tagged)[REQ_ID];
    if (id !== undefined && this.logger) {
      this.logger.info({ req_id: id, req_method: inc.method, req_path: pathOf(inc), resp_status: status, resp_duration: ms }, 'Sent response.');
    }
  }
}

function pathOf(inc: IncomingMessage): string {
  let url = inc.url ?? '/';
  // Absolute-form request targets (through proxies): drop "scheme://host".
  if (url[0] !== '/') url = url.slice(Math.max(0, url.indexOf('/', url.indexOf('//') + 2)));
  const qi = url.indexOf('?');
  return qi < 0 ? url : url.slice(0, qi);
}

/** Method names repeat: avoid a new lower-case string per request. */
function lower(m: string): string {
  switch (m) {
    case 'GET':
      return 'get';
    case 'POST':
      return 'post';
    case 'PUT':
      return 'put';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return m.toLowerCase();
  }
}
