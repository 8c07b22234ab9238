// The HTTP server: createApp (a Hono app, for tests or embedding) and startServer.
export { createApp, SERVER_ROUTES, type CreatedApp } from './app.js';
export { answeredByPrimary, type Answerer, type Method, type MountShared, type RouteDecl, type RouteFamily } from './route-table.js';
export { startServer, parseAddr, type StartOptions, type RunningServer } from './start.js';
export type { ServerOptions, PluginStatus, DecisionEvent, VersionInfo } from './context.js';
export * from '../engine/types.js';
export { HttpError, Code, Msg } from './errors.js';
export { TLSConfigError, type TLSOptions } from './tls.js';
export type { AccessOptions, AuthorizationMode } from './access/gate.js';
export type { AuthenticationMode } from './access/authn.js';
