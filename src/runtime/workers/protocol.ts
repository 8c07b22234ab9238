// The messages between the primary and its workers (Node cluster IPC with the `advanced`
// serialization, so Buffers pass as they are). Rego values never cross as objects — sets
// and big numbers would not survive a structured clone — but as JSON text.

import type { DecisionEvent } from '../../engine/index.js';
import type { ForwardedRequest, ForwardedResponse } from '../../server/cluster.js';
import { answeredByPrimary, SERVER_ROUTES, type PluginStatus } from '../../server/index.js';
import { CONSOLE_ROUTES } from '../../console/index.js';
import { parseJSON, toJSONText, type Value } from '../../value/index.js';
import type { LoggedDecision } from '../../plugins/logs/event.js';
import type { Delta, FullState } from './replication.js';

export type ToWorker =
  | { t: 'state'; seq: number; state: FullState }
  | { t: 'freeze'; seq: number }
  | { t: 'apply'; seq: number; delta: Delta }
  | { t: 'plugins'; states: Record<string, PluginStatus | undefined> }
  | { t: 'answer'; id: number; res?: ForwardedResponse; error?: string }
  | { t: 'metrics-req'; id: number }
  | { t: 'decision-event'; json: string }
  /** The most connections this worker should hold (balance.ts); null: no limit. */
  | { t: 'share'; share: number | null };

export type ToPrimary =
  | { t: 'hello' }
  | { t: 'ready'; seq: number }
  /** Its listeners are up: from now on, an exit is a crash to restart after. */
  | { t: 'serving' }
  /** Its listeners could not start (the message as the CLI shows it): the whole process stops. */
  | { t: 'failed'; message: string }
  /** Its listeners are closed and every decision before this message was sent: it exits. */
  | { t: 'stopped' }
  | { t: 'frozen'; seq: number }
  | { t: 'applied'; seq: number; error?: string }
  | { t: 'forward'; id: number; req: ForwardedRequest }
  | { t: 'decision'; event: string }
  /** The worker's console has stream listeners (on), or none left (off). */
  | { t: 'feed'; on: boolean }
  | { t: 'metrics'; id: number; json: unknown }
  /** How many connections its listeners hold (balance.ts). */
  | { t: 'conns'; open: number };

const VALUE_FIELDS = ['input', 'result', 'nd_builtin_cache'] as const;

/** A decision event as text: its values as Rego JSON, the rest as plain JSON. */
export function encodeEvent(e: LoggedDecision): string {
  const plain: Record<string, unknown> = { ...e };
  for (const k of VALUE_FIELDS) if (e[k] !== undefined) plain[k] = toJSONText(e[k]);
  // The request body stays in the worker. The input goes as its text from the body when the
  // server found it (a partial input, read where the policy looks, has no other whole form).
  if (e.input_text !== undefined) plain['input'] = e.input_text.toString('utf8');
  else if (e.input_partial) throw new Error('a decision read from part of its input came without the input text');
  delete plain['input_text'];
  delete plain['input_partial'];
  return JSON.stringify(plain);
}

export function decodeEvent(text: string): DecisionEvent {
  const plain = JSON.parse(text) as Record<string, unknown>;
  for (const k of VALUE_FIELDS) if (typeof plain[k] === 'string') plain[k] = parseJSON(plain[k]) as Value;
  return plain as unknown as DecisionEvent;
}

/**
 * Requests the primary answers: the routes declared `answeredBy: 'primary'` where they are
 * defined (src/server/routes, src/console/routes): writes (one store, copied by every
 * worker), and what describes the group (status, metrics, events, the console's dashboard,
 * decision log and impact analysis).
 */
export const primaryOwns: (method: string, path: string) => boolean = answeredByPrimary([...SERVER_ROUTES, ...CONSOLE_ROUTES]);
