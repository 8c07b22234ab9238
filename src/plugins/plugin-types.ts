// The plugins a configuration may name under `plugins:` (OPA's custom plugins, such as
// envoy_ext_authz_grpc). The manager knows none itself: an integration registers its type
// here (src/integrations/index.ts), the configuration validates its settings through it,
// and the manager creates and runs it beside the built-in plugins.

import type { Registry } from 'prom-client';
import type { DecisionEvent } from '../engine/index.js';
import type { Value } from '../value/index.js';
import type { Plugin, PluginLogger } from './plugin.js';

/** What a plugin may use of the running server. */
export interface PluginContext {
  /** Evaluates the document at data.<ref> (the engine's evaluate). */
  evaluate(ref: Value[], opts: { input?: Value; metrics?: boolean }): { result?: Value; metrics?: Record<string, number> } | Promise<{ result?: Value; metrics?: Record<string, number> }>;
  /** The decision log hook now (undefined while decision logging is off). */
  decisionLogger(): ((event: DecisionEvent) => Promise<void> | undefined) | undefined;
  /** The Prometheus registry /metrics and status report. */
  registry: Registry;
  logger: PluginLogger;
}

export interface PluginType<S = unknown> {
  /** The settings from the raw section; throws ConfigError naming the bad key. */
  validate(raw: unknown, key: string): S;
  create(settings: S, ctx: PluginContext): Plugin;
}

export const PLUGIN_TYPES: Record<string, PluginType> = {};

/** Makes `plugins.<name>` in a configuration mean this plugin. */
export function registerPluginType<S>(name: string, type: PluginType<S>): void {
  PLUGIN_TYPES[name] = type as PluginType;
}
