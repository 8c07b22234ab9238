// What an adapter is. A data adapter is a client and a mapping: read(ctx) fetches what it
// needs from its API (through AdapterHttp, which owns retries, throttling, paging and
// caching) and returns the document the adapter serves at its root. An event adapter turns
// an incoming request into the input of a configured rule. Everything else (schedule,
// activation, persistence, status, decision logs) is the shared mechanism's.

import type { Section } from '../config/section.js';
import type { PluginLogger } from '../plugin.js';
import type { AdapterHttp } from './http.js';

export type JSONValue = null | boolean | number | string | JSONValue[] | { [k: string]: JSONValue };
export type JSONObject = { [k: string]: JSONValue };

/** A JSON object (not an array, not null): what the APIs' answers are read through. */
export const isObj = (v: unknown): v is JSONObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ReadContext {
  http: AdapterHttp;
  signal: AbortSignal;
  log: PluginLogger;
  /** What the previous successful read returned (incremental adapters start from it). */
  previous?: JSONValue;
  /** Progress of a long read (deps-check draws a bar from it). */
  progress?: (done: number, total: number) => void;
}

export interface DataSource {
  read(ctx: ReadContext): Promise<JSONValue>;
  /**
   * Opens the API's push channels (watch calls) so that changes arrive as notifications at
   * `push.address`; called after a successful read whenever no channel is open or the open
   * ones expire within the next poll. Returns what unwatch needs to close them.
   */
  watch?(ctx: WatchContext): Promise<PushChannel[]>;
  /** Closes channels (channels/stop) when the adapter stops. */
  unwatch?(ctx: WatchContext, channels: PushChannel[]): Promise<void>;
  /**
   * Brings the document up to date for one event before it is decided (the webhook's job:
   * its tests): reads only what the event concerns and returns the new document, or
   * undefined when `previous` already holds it. The event is the event adapter's input.
   */
  forEvent?(ctx: ReadContext & { previous: JSONValue }, event: JSONValue): Promise<JSONValue | undefined>;
}

/** A push channel the API opened for the adapter. */
export interface PushChannel {
  id: string;
  resourceId?: string;
  /** Epoch ms when the API stops sending on it (undefined: never said). */
  expiration?: number;
  /** Where it was opened (the adapter's own bookkeeping, e.g. which calendar). */
  resource?: string;
}

export interface WatchContext {
  http: AdapterHttp;
  signal: AbortSignal;
  log: PluginLogger;
  /** The URL the API is to notify (the server's /v1/events/<adapter>, as reachable from the API). */
  address: string;
  /** The secret the API echoes back with each notification. */
  token: string;
  /** The secret as it is now (token_path is re-read). */
  tokenOf(): string;
  /** A fresh channel id. */
  newId(): string;
  /** Requested lifetime in seconds (push.ttl_seconds). */
  ttlSeconds: number;
}

/** An incoming event as the server received it. */
export interface IncomingEvent {
  body: Buffer;
  headers: Record<string, string | undefined>;
  /** The path after /v1/events/<name>/, when there is one (a token in the URL). */
  pathToken?: string;
}

export interface EventMapping {
  /** The rule's input; throws EventError for an event it cannot read. */
  input(event: IncomingEvent): JSONValue;
}

export class EventError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'EventError';
  }
}

/** One adapter type: its configuration keys and how to build it. */
export interface AdapterType<S = unknown> {
  kind: 'data' | 'event';
  /** Data adapters: the root (data path) when the configuration names none. */
  defaultRoot?: string;
  /** Reads and validates the type's own keys (everything the common keys leave). */
  settings(s: Section): S;
  data?(settings: S): DataSource;
  /**
   * Data adapters with push channels: the header each notification carries the channel
   * token in (the APIs of seed 002 echo it as X-Goog-Channel-Token).
   */
  pushTokenHeader?: string;
  event?(settings: S): EventMapping;
}
