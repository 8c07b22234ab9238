// Every route is declared where it is registered: its method, its path and which process
// answers it when `regolith run --workers N` splits the server into a primary (the one
// store and the plugins) and workers (copies that serve decisions). What a worker forwards
// to the primary and which paths answer a wrong method with 405 are derived from these
// declarations (answeredByPrimary, wrongMethodPaths), never listed a second time.

import type { Registry } from 'prom-client';
import type { App, ServerContext } from './context.js';
import type { DurationHistogram } from './duration-histogram.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Which process answers under --workers: 'primary' (writes: it holds the one store every
 * worker copies; and what describes the whole group: status, metrics, the plugins'
 * events), or 'worker' (any worker, from its own copy). Without --workers one process is both.
 */
export type Answerer = 'primary' | 'worker';

export interface RouteDecl {
  method: Method;
  /** Hono's path: exact, or ending in `/*` for the path before it and every path below (as Hono matches it). */
  path: string;
  answeredBy: Answerer;
}

/** What the app hands every family besides its context. */
export interface MountShared {
  registry: Registry;
  /** http_request_duration_seconds (the console's dashboard reads it). */
  durations: DurationHistogram;
}

/** One module's routes: their declarations and the function that registers their handlers. */
export interface RouteFamily {
  routes: readonly RouteDecl[];
  /** OPA's resources: another method on these paths gets an empty 405 (elsewhere a wrong method is a 404, as an unknown path). */
  resources?: readonly string[];
  /** Registers a handler for each declared route (or none: a family switched off by the configuration). */
  mount(app: App, ctx: ServerContext, shared: MountShared): void;
}

/** The declarations of some families, in order. */
export function declared(families: readonly RouteFamily[]): RouteDecl[] {
  return families.flatMap((f) => f.routes);
}

/** The paths that answer 405 to an undeclared method, each once, in order. */
export function wrongMethodPaths(families: readonly RouteFamily[]): string[] {
  return [...new Set(families.flatMap((f) => f.resources ?? []))];
}

/**
 * Whether the primary answers (method, path): a declared route answered by the primary
 * matches it as Hono matches it (`/a/*` stands for `/a` and every path starting `/a/`), so
 * whatever request reaches a route's handler goes to the process the route names. It runs
 * for every request a worker gets, so the declarations are looked up once, by method.
 */
export function answeredByPrimary(routes: readonly RouteDecl[]): (method: string, path: string) => boolean {
  const exact = new Map<string, Set<string>>();
  const prefixes = new Map<string, string[]>();
  for (const r of routes) {
    if (r.answeredBy !== 'primary') continue;
    if (r.path.endsWith('/*')) {
      const list = prefixes.get(r.method) ?? [];
      list.push(r.path.slice(0, -2));
      prefixes.set(r.method, list);
    } else {
      const set = exact.get(r.method) ?? new Set<string>();
      set.add(r.path);
      exact.set(r.method, set);
    }
  }
  return (method, path) => {
    if (exact.get(method)?.has(path)) return true;
    const list = prefixes.get(method);
    return list !== undefined && list.some((p) => path === p || (path.startsWith(p) && path[p.length] === '/'));
  };
}
