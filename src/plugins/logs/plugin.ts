// The decision log plugin: every decision becomes one OPA-shaped event, passed through the
// drop and mask policies, written to the console (pino JSON lines) and/or buffered for
// upload. Uploads POST gzipped JSON arrays to <service><resource> between min and max delay
// seconds; a failed upload keeps its events and retries with backoff.
//
// Events are compressed ahead of the upload: as soon as the buffer holds a chunk's worth of
// raw JSON (the encoder's raw size per chunk, ~300 KB at the default limit), that chunk is cut
// and gzipped on the thread pool, and the buffer keeps the compressed body (~70 bytes an event
// instead of ~600). The raw bytes an event occupies are then reused within a chunk's time
// instead of after the next upload: at thousands of decisions a second, seconds of raw events
// were megabytes of memory touched once, a page fault every few decisions, and caches
// evicted on the request path. An upload compresses what is left and sends the bodies in order.

import pino, { type Logger } from 'pino';
import { newPlainObject, parseJSON, type PlainObject, type Value } from '../../value/index.js';
import type { DecisionEvent } from '../../engine/index.js';
import type { Config, DecisionLogsConfig } from '../config/types.js';
import type { ServiceClient } from '../services/client.js';
import { backoffMs, jitteredDelayMs, secondsToMs, sleep, REAL_TIMING, type Timing } from '../timing.js';
import { SILENT_LOGGER, type Plugin, type PluginLogger, type PluginStatus } from '../plugin.js';
import { EventBuffer } from './buffer.js';
import { DecisionFeed } from './feed.js';
import { ChunkEncoder, gzippedAloneSize } from './chunk.js';
import { buildEvent, encodeDecision, encodeEvent, EventText, type LoggedDecision } from './event.js';
import { EventWriter, type WrittenEvent } from './event-bytes.js';
import { filterEvent, pathRef, type PolicyEvaluator } from './mask.js';

export interface DecisionLogPluginOptions {
  config: Config;
  client?: ServiceClient;
  engine?: PolicyEvaluator;
  /** name -> active revision of every bundle, for the `bundles` field. */
  revisions?: () => Record<string, string>;
  /** labels.id / labels.version as the status and logs report them. */
  labels: Record<string, string>;
  timing?: Timing;
  /** Where console events go (default: pino to stdout). */
  console?: Logger;
  logger?: PluginLogger;
  onChange?: () => void;
}


const NO_REVISIONS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export interface UploadStatus {
  code?: string;
  message?: string;
  http_code?: string;
  metrics: Record<string, number>;
}

export class DecisionLogPlugin implements Plugin {
  readonly name = 'decision_logs';
  private cfg: DecisionLogsConfig;
  private readonly timing: Timing;
  private readonly log: PluginLogger;
  private buffer: EventBuffer;
  /** Kept across uploads: it has learnt how large a chunk may be before it is compressed. */
  private encoder: ChunkEncoder;
  private consoleLogger: Logger | undefined;
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private uploading: Promise<boolean> | undefined;
  /** The compression running now (ahead of the upload, or the upload's own). */
  private packing: Promise<void> | undefined;
  private failures = 0;
  /** data refs of the drop and mask policies (looked up per decision: policies change). */
  private dropRef: string[];
  private maskRef: string[];
  private readonly eventText = new EventText();
  /** Writes each event's bytes (reused: one event at a time, copied out at once). */
  private readonly writer = new EventWriter();
  private lastError: { message: string; httpCode?: number } | undefined;
  /** Events accepted, uploaded and dropped by policy (tests and status read them). */
  readonly counts = { logged: 0, uploaded: 0, dropped_by_policy: 0, nd_builtin_cache_dropped: 0 };
  /** The web console's feed: the last encoded events (masked, never dropped ones) and its listeners. */
  private readonly feed = new DecisionFeed({
    events: 1000,
    bytes: 32 * 1024 * 1024,
    onListenerError: (err) => this.log.error({ err: (err as Error).message }, 'Decision log feed listener failed.'),
  });

  constructor(private opts: DecisionLogPluginOptions) {
    if (!opts.config.decision_logs) throw new Error('decision_logs is not configured');
    this.cfg = opts.config.decision_logs;
    this.timing = opts.timing ?? REAL_TIMING;
    this.log = opts.logger ?? SILENT_LOGGER;
    this.buffer = new EventBuffer(this.cfg.reporting.buffer_size_limit_bytes, this.cfg.reporting.max_decisions_per_second);
    this.encoder = new ChunkEncoder(this.cfg.reporting.upload_size_limit_bytes);
    this.dropRef = pathRef(this.cfg.drop_decision);
    this.maskRef = pathRef(this.cfg.mask_decision);
    if (this.cfg.console) this.consoleLogger = opts.console ?? pino({ level: 'info' });
  }

  async start(): Promise<void> {
    if (this.opts.client && this.cfg.reporting.trigger === 'periodic') this.loop ??= this.run();
  }

  /** Stops the timer and makes one last attempt to upload what is buffered. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    if (this.opts.client) await this.flush();
    await this.packing;
    this.encoder.close();
  }

  status(): PluginStatus {
    return { state: 'OK' };
  }

  /**
   * A new configuration (discovery): service, resource, reporting, console and policies
   * change in place. The buffered events are kept (an upload in flight ends first) and go
   * to the new service at its next upload.
   */
  async reconfigure(config: Config, client: ServiceClient | undefined, labels: Record<string, string>): Promise<void> {
    const next = config.decision_logs;
    if (!next) throw new Error('decision_logs is not configured');
    this.abort.abort();
    await this.loop;
    await this.uploading;
    while (this.packing) await this.packing;
    this.abort = new AbortController();
    this.loop = undefined;
    const r = next.reporting;
    const prev = this.cfg.reporting;
    if (r.buffer_size_limit_bytes !== prev.buffer_size_limit_bytes || r.max_decisions_per_second !== prev.max_decisions_per_second) {
      const old = this.buffer;
      this.buffer = new EventBuffer(r.buffer_size_limit_bytes, r.max_decisions_per_second);
      this.buffer.adopt(old);
    }
    if (r.upload_size_limit_bytes !== prev.upload_size_limit_bytes) {
      this.encoder.close();
      this.encoder = new ChunkEncoder(r.upload_size_limit_bytes);
      // Bodies packed for the old limit are cut again for the new one. Meanwhile nothing else
      // is packed: a chunk packed now would go ahead of the older events being unpacked.
      await this.asPacking(this.buffer.unpack());
    }
    this.opts = { ...this.opts, config, client, labels };
    this.cfg = next;
    this.dropRef = pathRef(next.drop_decision);
    this.maskRef = pathRef(next.mask_decision);
    this.consoleLogger = next.console ? (this.consoleLogger ?? this.opts.console ?? pino({ level: 'info' })) : undefined;
    this.failures = 0;
    this.lastError = undefined;
    await this.start();
  }

  uploadStatus(): UploadStatus {
    const d = this.buffer.dropped;
    const metrics: Record<string, number> = {
      counter_decision_logs_dropped_buffer_size_limit_bytes_exceeded: d.buffer_size_limit_exceeded,
      counter_decision_logs_dropped_rate_limit_exceeded: d.rate_limit_exceeded,
      counter_decision_logs_dropped_event_too_large: d.event_too_large,
      counter_decision_logs_uploaded: this.counts.uploaded,
      counter_decision_logs_nd_builtin_cache_dropped: this.counts.nd_builtin_cache_dropped,
      gauge_decision_logs_buffered_events: this.buffer.length,
    };
    const out: UploadStatus = { metrics };
    if (this.lastError) {
      out.code = 'decision_logs_error';
      out.message = this.lastError.message;
      if (this.lastError.httpCode) out.http_code = String(this.lastError.httpCode);
    }
    return out;
  }

  /** Logs one decision (for callers that await it; the server calls record()). */
  async logDecision(d: LoggedDecision): Promise<void> {
    await this.record(d);
  }

  /**
   * The hook the server calls once per decision (ServerOptions.decisionLogger): synchronous
   * (no promise, no microtask) unless a drop or mask policy has to be evaluated. Without
   * such a policy the event's JSON text is written straight from the decision (one pass,
   * no event object, no copy of the input); that text is what the feed, the console and
   * the upload buffer share.
   */
  record(d: LoggedDecision): Promise<void> | undefined {
    if (!this.buffer.admit()) return undefined;
    const engine = this.opts.engine;
    if (engine && (engine.hasRulesAt(this.dropRef) || engine.hasRulesAt(this.maskRef))) return this.logFiltered(engine, d);
    const ctx = { labels: this.opts.labels, revisions: this.revisionsFor(d) };
    if (d.nd_builtin_cache === undefined || !this.opts.client) {
      this.writer.decision(d, ctx, this.eventText);
      this.acceptWritten();
      return undefined;
    }
    let encoded = encodeDecision(d, ctx, this.eventText);
    if (!this.fits(encoded, d.nd_builtin_cache)) encoded = this.fitted(buildEvent(d, ctx));
    this.accept(encoded);
    return undefined;
  }

  /**
   * record() for an event a worker wrote (EventWriter.pieces): the pieces are put together
   * with this process's bundles and labels, and logged as record() logs the decision. The
   * event is decoded only for a drop or mask policy, or to drop an nd_builtin_cache that
   * makes it too large to upload.
   */
  recordWritten(e: WrittenEvent): Promise<void> | undefined {
    if (!this.buffer.admit()) return undefined;
    const w = this.writer;
    w.assemble(e.buf, e.start, e.split, e.end, { labels: this.opts.labels, revisions: this.revisionsFor(e) }, this.eventText);
    const engine = this.opts.engine;
    if (engine && (engine.hasRulesAt(this.dropRef) || engine.hasRulesAt(this.maskRef))) return this.filter(engine, writtenEvent(w));
    // (+2: the brackets of an upload's JSON array around it)
    if (e.ndCache && this.opts.client && w.length + 2 > this.cfg.reporting.upload_size_limit_bytes) {
      const encoded = w.toString();
      this.accept(this.fits(encoded, true) ? encoded : this.fitted(writtenEvent(w)));
      return undefined;
    }
    this.acceptWritten();
    return undefined;
  }

  /**
   * Logs the event in the writer. The common case: its bytes are copied once, into the feed,
   * whose copy the upload buffer shares; no string is made.
   */
  private acceptWritten(): void {
    const w = this.writer;
    this.counts.logged++;
    this.feed.pushBytes(w.buf, w.length);
    if (this.consoleLogger) this.logToConsole(w.toString());
    if (this.opts.client) this.buffer.pushShared(this.feed.q, this.feed.q.end - 1);
    if (this.buffer.rawBytes >= this.encoder.uncompressedLimit) this.packAhead();
  }

  /** The active bundle revisions, plus those the decision names itself (an event adapter's data). */
  private revisionsFor(d: { revisions?: Record<string, string> }): Record<string, string> {
    const active = this.opts.revisions?.() ?? NO_REVISIONS;
    return d.revisions ? { ...active, ...d.revisions } : active;
  }

  /** A decision through the drop and mask policies (they take the event object as input). */
  private logFiltered(engine: PolicyEvaluator, d: DecisionEvent): Promise<void> {
    return this.filter(engine, buildEvent(d, { labels: this.opts.labels, revisions: this.revisionsFor(d) }));
  }

  /** An event through the drop and mask policies, then logged unless dropped. */
  private async filter(engine: PolicyEvaluator, event: PlainObject): Promise<void> {
    let filtered: PlainObject | undefined;
    try {
      filtered = await filterEvent(engine, event, this.maskRef, this.dropRef);
    } catch (err) {
      // A broken mask policy must not leak unmasked data: the event is not logged.
      this.log.error({ err: (err as Error).message, decision_id: event['decision_id'] }, 'Decision log mask/drop policy failed; event not logged.');
      return;
    }
    if (!filtered) {
      this.counts.dropped_by_policy++;
      return;
    }
    this.accept(this.fitted(filtered));
  }

  private accept(encoded: string): void {
    this.counts.logged++;
    this.feed.push(encoded);
    if (this.consoleLogger) this.logToConsole(encoded);
    if (this.opts.client) this.buffer.pushShared(this.feed.q, this.feed.q.end - 1);
    if (this.buffer.rawBytes >= this.encoder.uncompressedLimit) this.packAhead();
  }

  private logToConsole(encoded: string): void {
    this.consoleLogger?.info({ ...(JSON.parse(encoded) as object), type: 'openpolicyagent.org/decision_logs' }, 'Decision Log');
  }

  /** The last `limit` events logged (encoded JSON, as uploaded), oldest first. */
  recent(limit: number): string[] {
    return this.feed.recent(limit);
  }

  /** Calls `fn` with each event as it is logged; returns the unsubscribe function. */
  subscribe(fn: (eventJson: string) => void): () => void {
    return this.feed.subscribe(fn);
  }

  /**
   * The encoded event. As OPA, nd_builtin_cache is best effort: an event that could never
   * be uploaded (over upload_size_limit_bytes, gzipped) goes without it, with an error logged.
   */
  private fitted(event: PlainObject): string {
    const encoded = encodeEvent(event);
    if (this.fits(encoded, event['nd_builtin_cache'])) return encoded;
    // A copy: the filtered event may be a frozen Rego value.
    const smaller = newPlainObject();
    for (const k of Object.keys(event)) if (k !== 'nd_builtin_cache') smaller[k] = event[k]!;
    this.counts.nd_builtin_cache_dropped++;
    this.log.error(
      { decision_id: event['decision_id'] },
      'ND builtins cache dropped from this event to fit under maximum upload size limits. Increase upload size limit or change usage of non-deterministic builtins.',
    );
    return encodeEvent(smaller);
  }

  /** Whether an event may keep its nd_builtin_cache (always, unless it makes the event too large to upload). */
  private fits(encoded: string, ndCache: Value | undefined): boolean {
    const limit = this.cfg.reporting.upload_size_limit_bytes;
    if (!this.opts.client || ndCache === undefined || Buffer.byteLength(encoded) + 2 <= limit) return true;
    return gzippedAloneSize(encoded) <= limit;
  }

  /** Uploads everything buffered now (manual trigger); true when all of it was accepted. */
  async trigger(): Promise<boolean> {
    return this.flush();
  }

  private async run(): Promise<void> {
    const r = this.cfg.reporting;
    while (!this.abort.signal.aborted) {
      const delay =
        this.failures > 0
          ? backoffMs(this.timing, this.failures - 1, secondsToMs(this.timing, r.max_delay_seconds))
          : jitteredDelayMs(this.timing, r.min_delay_seconds, r.max_delay_seconds);
      if (!(await sleep(delay, this.abort.signal))) return;
      await this.flush();
    }
  }

  private flush(): Promise<boolean> {
    // One upload at a time; a concurrent caller waits for the running one.
    this.uploading ??= this.upload().finally(() => (this.uploading = undefined));
    return this.uploading;
  }

  /** Compresses a chunk's worth of raw events now, unless a compression is running. */
  private packAhead(): void {
    if (this.packing) return;
    // gzip failed: the events are raw again in the buffer, and the next upload tries again
    this.asPacking(this.pack(false)).catch((err: unknown) => this.log.error({ err: (err as Error).message }, 'Decision log compression failed.'));
  }

  /** Compresses every raw event buffered now (after the running compression); rejects when gzip fails. */
  private async packAll(): Promise<void> {
    while (this.packing) await this.packing;
    await this.asPacking(this.pack(true));
  }

  /** Awaits `work` as the compression in flight (nothing is packed ahead meanwhile); rejects as it does. */
  private async asPacking(work: Promise<void>): Promise<void> {
    this.packing = work.then(
      () => {},
      () => {},
    );
    try {
      await work;
    } finally {
      this.packing = undefined;
    }
  }

  /**
   * Cuts raw events into chunks, oldest first, and keeps their compressed bodies in the
   * buffer: whole chunks' worth only (`all` false), or everything buffered when it started.
   * Events that alone exceed the upload limit once compressed are counted and left out. If gzip
   * fails, the events of the chunk at hand go back to the buffer raw, in front.
   */
  private async pack(all: boolean): Promise<void> {
    const enc = this.encoder;
    let budget = all ? this.buffer.rawBytes : 0;
    for (;;) {
      const limit = enc.uncompressedLimit;
      if (this.buffer.rawBytes === 0 || (all ? budget <= 0 : this.buffer.rawBytes < limit)) return;
      const batch = this.buffer.takeFront(limit);
      budget -= batch.bytes;
      let next = batch.first;
      const before = enc.tooLarge;
      try {
        while (next < batch.end) {
          const r = await enc.next(batch, next);
          for (const c of r.chunks) {
            const sizes = new Int32Array(c.to - c.from);
            let raw = 0;
            for (let s = c.from; s < c.to; s++) raw += sizes[s - c.from] = batch.size(s);
            this.buffer.addPacked({ body: c.body, sizes, raw, sending: false });
          }
          next = r.next;
        }
      } finally {
        const tooLarge = enc.tooLarge - before;
        if (tooLarge) {
          this.buffer.dropped.event_too_large += tooLarge;
          this.log.error({ count: tooLarge }, 'Decision log event exceeds the upload size limit; dropped.');
        }
        batch.shiftUntil(next);
        this.buffer.requeue(batch);
      }
    }
  }

  /**
   * Uploads what is buffered: compresses the raw events left, then sends the packed bodies
   * one request at a time, oldest first. A failed request leaves its body and every later
   * one in the buffer for the next attempt; nothing is lost but what the byte limit drops.
   */
  private async upload(): Promise<boolean> {
    const client = this.opts.client;
    if (!client) return true;
    const failed = (error: { message: string; httpCode?: number }): false => {
      this.failures++;
      const changed = this.lastError?.message !== error.message;
      this.lastError = error;
      this.log.error({ err: error.message }, 'Decision log upload failed.');
      if (changed) this.opts.onChange?.();
      return false;
    };
    try {
      await this.packAll();
    } catch (err) {
      // gzip failed: the events are still in the buffer; nothing is lost.
      return failed({ message: `log upload failed: ${(err as Error).message}` });
    }
    // the bodies packed by now: those packed while they are sent wait for the next upload
    for (const c of this.buffer.packedNow()) {
      if (!this.buffer.holdsPacked(c)) continue; // the byte limit dropped it meanwhile
      c.sending = true;
      const error = await this.send(client, c.body);
      c.sending = false;
      if (error) return failed(error);
      this.buffer.removePacked(c);
      this.counts.uploaded += c.sizes.length;
    }
    this.failures = 0;
    if (this.lastError) {
      this.lastError = undefined;
      this.opts.onChange?.();
    }
    return true;
  }

  private async send(client: ServiceClient, body: Buffer): Promise<{ message: string; httpCode?: number } | undefined> {
    try {
      const res = await client.request({
        method: 'POST',
        path: this.cfg.resource,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body,
      });
      if (res.status < 200 || res.status >= 300) return { message: `log upload failed, server replied with HTTP ${res.status}`, httpCode: res.status };
    } catch (err) {
      return { message: `log upload failed: ${(err as Error).message}` };
    }
    return undefined;
  }
}

/**
 * The event in `w` as the object buildEvent makes (what the drop and mask policies take): its
 * JSON read back. The text is this process's own writing of what a server already accepted, so
 * no depth limit applies (the event is a level deeper than the input it holds).
 */
function writtenEvent(w: EventWriter): PlainObject {
  return parseJSON(w.toString(), { maxDepth: Number.MAX_SAFE_INTEGER }) as PlainObject;
}
