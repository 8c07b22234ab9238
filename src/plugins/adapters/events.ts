// An event adapter as the server calls it: the sender is authenticated with the adapter's
// shared secret, the event becomes the input of the configured rule, the data adapters
// named in `refresh` first read what this event concerns (within decide_within_seconds:
// the pipeline's job and its tests, so a job is decided on data that includes it), the
// decision is answered and shipped to the decision logs under its own decision_id with
// the data revisions that decided it, and those adapters then read their API again (after
// the answer: a sender is never kept waiting on a whole read).

import type { DecisionEvent } from '../../engine/index.js';
import type { Value } from '../../value/index.js';
import type { PolicyEvaluator } from '../logs/mask.js';
import type { PluginLogger } from '../plugin.js';
import type { AdapterConfig } from './config.js';
import { adapterBundleName } from './data-plugin.js';
import { carriesSecret, carriesSignature, expectedSecret, pathTokenMatches } from './secret.js';
import { EventError, type EventMapping, type IncomingEvent, type JSONValue } from './types.js';
import { newDecisionId } from '../../engine/decision-id.js';

export interface EventReply {
  status: number;
  body: JSONValue;
}

export interface EventRunnerOptions {
  config: AdapterConfig;
  mapping: EventMapping;
  engine: PolicyEvaluator;
  logDecision?: (e: DecisionEvent) => Promise<void>;
  refresh: (adapter: string) => Promise<void>;
  /** Makes the data adapter's document hold what the event concerns; returns its revision then. */
  prepare: (adapter: string, input: JSONValue, deadlineMs: number) => Promise<string | undefined>;
  /** Milliseconds per configured second. */
  msPerSecond: number;
  logger: PluginLogger;
}

export class EventAdapterRunner {
  constructor(private readonly o: EventRunnerOptions) {}

  /** Whether the secret may come in the path (token_in_path). */
  get takesPathToken(): boolean {
    return this.o.config.token_in_path;
  }

  /**
   * The sender knows the secret: it sent it (in its header, or in the path when allowed) or
   * signed the body with it. Throws when the secret cannot be read.
   */
  private authentic(ev: IncomingEvent): boolean {
    const c = this.o.config;
    if (ev.pathToken !== undefined) return c.token_in_path && pathTokenMatches(c, ev.pathToken);
    if (c.signature && carriesSignature(c.signature, expectedSecret(c), ev.body, ev.headers)) return true;
    return carriesSecret(c, ev.headers);
  }

  async handle(ev: IncomingEvent): Promise<EventReply> {
    const name = this.o.config.name;
    try {
      if (!this.authentic(ev)) return { status: 401, body: { code: 'unauthorized', message: `event adapter ${name}: the request carries no valid token or signature` } };
    } catch (e) {
      this.o.logger.error({ adapter: name, err: (e as Error).message }, 'Event adapter secret unreadable.');
      return { status: 500, body: { code: 'internal_error', message: `event adapter ${name}: its token cannot be read` } };
    }
    let input: JSONValue;
    try {
      input = this.o.mapping.input(ev);
    } catch (e) {
      if (!(e instanceof EventError)) throw e;
      return { status: e.status, body: { code: 'invalid_parameter', message: `event adapter ${name}: ${e.message}` } };
    }
    const rule = this.o.config.rule!;
    const decision_id = newDecisionId();
    const deadline = this.o.config.decide_within_seconds * this.o.msPerSecond;
    const revisions: Record<string, string> = {};
    await Promise.all(
      this.o.config.refresh.map(async (a) => {
        const r = await this.o.prepare(a, input, deadline);
        if (r !== undefined) revisions[adapterBundleName(a)] = r;
      }),
    );
    let result: Value | undefined;
    try {
      result = (await this.o.engine.evaluate(rule.split('/'), { input: input as Value })).result;
    } catch (e) {
      const message = (e as Error).message;
      await this.log({ decision_id, path: rule, input: input as Value, error: { code: 'internal_error', message }, revisions });
      return { status: 500, body: { code: 'internal_error', message, decision_id } };
    }
    await this.log({ decision_id, path: rule, input: input as Value, result, revisions });
    for (const a of this.o.config.refresh) {
      this.o.refresh(a).catch((e: Error) => this.o.logger.warn({ adapter: a, err: e.message }, 'Refresh after an event failed.'));
    }
    const body: Record<string, JSONValue> = { decision_id };
    if (result !== undefined) body['result'] = result as JSONValue;
    return { status: 200, body };
  }

  private async log(e: DecisionEvent): Promise<void> {
    try {
      await this.o.logDecision?.({ ...e, requested_by: `adapter:${this.o.config.name}` });
    } catch (err) {
      this.o.logger.error({ adapter: this.o.config.name, err: (err as Error).message }, 'Event decision could not be logged.');
    }
  }
}
