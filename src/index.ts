// Regolith's public library API: the engine facade (src/engine), which Node programs use
// in-process, as the server, the CLI and the plugins do.

export * from './engine/index.js';
