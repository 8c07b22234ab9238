// What every managed plugin (bundle, decision_logs, status) offers the manager: start,
// stop, and a state (OPA's OK / NOT_READY / ERROR / WARN) for health checks and status.

export type PluginState = 'OK' | 'NOT_READY' | 'ERROR' | 'WARN';

export interface PluginStatus {
  state: PluginState;
  message?: string;
}

export interface Plugin {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): PluginStatus;
}

/** Minimal logger surface (pino's); plugins never require a logger. */
export interface PluginLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export const SILENT_LOGGER: PluginLogger = { info() {}, warn() {}, error() {}, debug() {} };
