// What an adapter is. A data adapter is a client and a mapping: read(ctx) fetches what it
// needs from its API (through AdapterHttp, which owns retries, throttling, paging and
// caching) and returns the document the adapter serves at its root. An event adapter turns
// an incoming request into the input of a configured rule. Everything else (schedule,
// activation, persistence, status, decision logs) is the shared mechanism's.

import type { Section } from '../config/section.js';
import type { PluginLogger } from '../plugin.js';
import type { AdapterHttp } from './http.js';

export type JSONValue = null | boolean | number | string | JSONValue[] | { [k: string]: JSONValue };

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
}

/** An incoming event as the server received it. */
export interface IncomingEvent {
  body: Buffer;
  headers: Record<string, string | undefined>;
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
  event?(settings: S): EventMapping;
}
