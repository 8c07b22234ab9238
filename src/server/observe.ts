// Per-request bookkeeping at the Node listener, outside Hono: the Prometheus duration
// (code, handler, method) and OPA-style request logging ("Received request." / "Sent
// response.", info level, per-process request id, the client's address, the decision id
// where the request made a decision). As Hono middleware these two cost two async layers
// per request even with logging off; here they cost a clock read and a histogram update.
// Every response is observed, those the authorization gate refuses included: begin() is
// called where the request enters, and again (the same start, the same id) by the route.
// Routes name their Prometheus handler with setHandler(), their decision with setDecisionId().

import type { Logger } from 'pino';
import type { DurationHistogram } from './duration-histogram.js';
import { remoteAddr } from './remote.js';
import type { RequestHead } from './body.js';

const HANDLER = Symbol('regolith.handler');
const REQ_ID = Symbol('regolith.reqId');
const START = Symbol('regolith.start');
const DECISION = Symbol('regolith.decisionId');

type Tagged = RequestHead & { [HANDLER]?: string; [REQ_ID]?: number; [START]?: number; [DECISION]?: string };

/** Names the Prometheus `handler` label of this request (unnamed requests are "catchall"). */
export function setHandler(incoming: RequestHead | undefined, label: string): void {
  if (incoming) (incoming as Tagged)[HANDLER] = label;
}

/** The request's route label (as the Prometheus `handler`), once its response is decided. */
export function handlerOf(incoming: RequestHead): string | undefined {
  return (incoming as Tagged)[HANDLER];
}

/** The decision id of this request's decision, for its "Sent response." line. */
export function setDecisionId(incoming: RequestHead | undefined, id: string | undefined): void {
  if (incoming && id !== undefined) (incoming as Tagged)[DECISION] = id;
}

export class RequestObserver {
  private reqId = 0;

  constructor(
    private readonly durations: DurationHistogram,
    private readonly logger?: Logger,
  ) {}

  /** Start of a request: its start time (ms, performance.now()); the same when begun already. */
  begin(inc: RequestHead): number {
    const t = inc as Tagged;
    if (t[START] !== undefined) return t[START];
    const start = (t[START] = performance.now());
    if (this.logger?.isLevelEnabled('info')) {
      const id = ++this.reqId;
      t[REQ_ID] = id;
      this.logger.info({ client_addr: remoteAddr({ incoming: inc }), req_id: id, req_method: inc.method, req_path: pathOf(inc) }, 'Received request.');
    }
    return start;
  }

  /**
   * End of a request (its response is decided): records the duration, logs the response.
   * `handler` names the Prometheus label when the caller knows it (else setHandler's).
   */
  end(inc: RequestHead, start: number, status: number, handler?: string): void {
    const ms = performance.now() - start;
    const t = inc as Tagged;
    // kept on the request for its trace span's name (handlerOf)
    const label = (t[HANDLER] = handler ?? t[HANDLER] ?? 'catchall');
    this.durations.observe(status, label, lower(inc.method ?? ''), ms / 1000);
    const id = t[REQ_ID];
    if (id !== undefined && this.logger) {
      const line: Record<string, unknown> = { client_addr: remoteAddr({ incoming: inc }), req_id: id, req_method: inc.method, req_path: pathOf(inc), resp_status: status, resp_duration: ms };
      if (t[DECISION] !== undefined) line['decision_id'] = t[DECISION];
      this.logger.info(line, 'Sent response.');
    }
  }
}

function pathOf(inc: RequestHead): string {
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
