// OPA's configuration file: loading (file, ${ENV}, --set), validation, and the redacted
// view /v1/config shows (the server's redact.ts does the redaction; re-exported here).
import { loadConfigDocument, type LoadConfigOptions } from './load.js';
import { validateConfig } from './validate.js';
import type { Config } from './types.js';

export * from './types.js';
export { loadConfigDocument, parseConfigText, substituteEnv, applySet, typedValue, type LoadConfigOptions } from './load.js';
export { validateConfig } from './validate.js';

/** Reads and validates the configuration; throws ConfigError naming the bad key. */
export function loadConfig(opts: LoadConfigOptions): Config {
  return validateConfig(loadConfigDocument(opts));
}
