// The messages between the primary and its workers (Node cluster IPC with the `advanced`
// serialization, so Buffers pass as they are). Rego values never cross as objects — sets
// and big numbers would not survive a structured clone — but as JSON text.

import type { ForwardedRequest, ForwardedResponse } from '../../server/cluster.js';
import { answeredByPrimary, SERVER_ROUTES, type PluginStatus } from '../../server/index.js';
import { CONSOLE_ROUTES } from '../../console/index.js';
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
  /** Decisions logged since the last such message, oldest first (decision-wire.ts). */
  | { t: 'decisions'; batch: Buffer }
  /** The worker's console has stream listeners (on), or none left (off). */
  | { t: 'feed'; on: boolean }
  | { t: 'metrics'; id: number; json: unknown }
  /** How many connections its listeners hold (balance.ts). */
  | { t: 'conns'; open: number };

/**
 * Requests the primary answers: the routes declared `answeredBy: 'primary'` where they are
 * defined (src/server/routes, src/console/routes): writes (one store, copied by every
 * worker), and what describes the group (status, metrics, events, the console's dashboard,
 * decision log and impact analysis).
 */
export const primaryOwns: (method: string, path: string) => boolean = answeredByPrimary([...SERVER_ROUTES, ...CONSOLE_ROUTES]);
