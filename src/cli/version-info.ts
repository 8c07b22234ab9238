// The package version: one source for every surface (src/engine/version.ts).

export { buildInfo, regolithVersion } from '../engine/version.js';
