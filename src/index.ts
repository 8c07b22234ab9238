// Regolith's public library API. Node programs import this module; the server, the
// CLI and the plugins also talk to the engine only through what is exported here.

export * from './eval/value/index.js';
export * from './lang/index.js';
