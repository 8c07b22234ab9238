// One envoy.service.auth.v3.Authorization/Check, apart from the transport: the decoded
// CheckRequest becomes the input, the configured document is evaluated, the decision
// becomes the CheckResponse, and the Check is logged as a decision with its id (the id is
// also in the response's dynamic_metadata, as OPA's plugin puts it). What goes wrong:
// - a request that does not read as an input: PERMISSION_DENIED, a 400 for Envoy to send,
//   message and body "request_parse_error: ..." (a response, not a gRPC error, as in OPA);
// - evaluation errors, an undefined decision or a decision of the wrong shape: the Check
//   fails with gRPC status UNKNOWN and OPA's message (Envoy then applies failure_mode_allow).

import type protobuf from 'protobufjs';
import { toJS, type Value } from '../../value/index.js';
import type { DecisionEvent } from '../../engine/index.js';
import { spans } from '../../engine/spans.js';
import type { PluginContext } from '../../plugins/plugin-types.js';
import type { EnvoySettings } from './config.js';
import { checkInput } from './input.js';
import { RequestParseError } from './request-error.js';
import type { GrpcBodyParser } from './body.js';
import { checkResponse, RPC_PERMISSION_DENIED } from './response.js';
import { newDecisionId } from '../../engine/decision-id.js';

/** gRPC status UNKNOWN: what a Go error returned from a handler becomes. */
export const GRPC_UNKNOWN = 2;

export interface CheckDeps {
  settings: EnvoySettings;
  ctx: Pick<PluginContext, 'evaluate' | 'decisionLogger' | 'logger'>;
  checkRequest: protobuf.Type;
  grpcBody?: GrpcBodyParser;
  /** enable-performance-metrics: the duration of each answered Check, and errors by reason. */
  metrics?: { observe(seconds: number): void; error(reason: string): void };
}

export type CheckOutcome = { response: Record<string, unknown>; error?: undefined } | { error: { code: number; message: string }; response?: undefined };

function errorCode(e: unknown): string {
  const errs = (e as { errors?: { code?: string }[] }).errors;
  return errs?.[0]?.code ?? (e as { code?: string }).code ?? 'internal_error';
}

export async function runCheck(d: CheckDeps, req: Record<string, unknown>): Promise<CheckOutcome> {
  const t0 = process.hrtime.bigint();
  const decisionId = newDecisionId();
  const ref = d.settings.ref;
  const event: DecisionEvent = { decision_id: decisionId, path: d.settings.path };
  const finish = async (outcome: CheckOutcome, reason?: string): Promise<CheckOutcome> => {
    const ns = Number(process.hrtime.bigint() - t0);
    event.metrics = { ...event.metrics, timer_server_handler_ns: ns };
    if (reason) d.metrics?.error(reason);
    else d.metrics?.observe(ns / 1e9);
    // as OPA's decision logger: the ids of the Check's server span, when it is traced
    const ids = spans()?.ids();
    if (ids) {
      event.trace_id = ids.trace_id;
      event.span_id = ids.span_id;
    }
    try {
      await d.ctx.decisionLogger()?.(event);
    } catch (err) {
      // OPA answers UNKNOWN when the decision cannot be logged.
      d.ctx.logger.debug({ err: (err as Error).message }, 'Error when logging event');
      return { error: { code: GRPC_UNKNOWN, message: (err as Error).message } };
    }
    return outcome;
  };

  let input: Value;
  try {
    input = checkInput(d.checkRequest, req, { skipRequestBodyParse: d.settings.skipRequestBodyParse, grpcBody: d.grpcBody });
  } catch (e) {
    if (!(e instanceof RequestParseError)) throw e;
    const message = `request_parse_error: ${e.message}`;
    event.error = { code: 'request_parse_error', message: e.message };
    const response = { status: { code: RPC_PERMISSION_DENIED, message }, denied_response: { status: { code: 400 }, body: message } };
    return finish({ response }, 'request_parse_error');
  }
  event.input = input;

  let decision: unknown;
  try {
    // evaluation metrics only for the decision log: collecting them costs more than some decisions
    const r = await d.ctx.evaluate(ref, { input, metrics: d.ctx.decisionLogger() !== undefined });
    if (r.metrics) event.metrics = { ...r.metrics };
    if (r.result === undefined) throw Object.assign(new Error('undefined decision'), { code: 'envoyauth_eval_error' });
    event.result = r.result;
    decision = toJS(r.result);
  } catch (e) {
    const message = (e as Error).message;
    event.error = { code: errorCode(e), message };
    return finish({ error: { code: GRPC_UNKNOWN, message } }, errorCode(e));
  }

  try {
    const { response } = checkResponse(decision, decisionId, d.settings.dryRun);
    return finish({ response });
  } catch (e) {
    const message = (e as Error).message;
    event.error = { code: 'envoyauth_result_error', message };
    return finish({ error: { code: GRPC_UNKNOWN, message } }, 'envoyauth_result_error');
  }
}
