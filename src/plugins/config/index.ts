// OPA's configuration file: loading (file, ${ENV}, --set), validation, and the redacted
// view /v1/config shows (the server's redact.ts does the redaction; re-exported here).
import { loadConfigDocument, unsetEnvVars, type LoadConfigOptions } from './load.js';
import { validateConfig } from './validate.js';
import { ConfigError, type Config } from './types.js';

export * from './types.js';
export { loadConfigDocument, parseConfigText, substituteEnv, unsetEnvVars, applySet, typedValue, type LoadConfigOptions } from './load.js';
export { validateConfig } from './validate.js';

/**
 * Reads and validates the configuration; throws ConfigError naming the bad key, and first
 * the ${VARIABLES} of the file left unset (they became empty values, the likely cause).
 */
export function loadConfig(opts: LoadConfigOptions): Config {
  const doc = loadConfigDocument(opts);
  try {
    return validateConfig(doc);
  } catch (e) {
    const unset = e instanceof ConfigError ? unsetEnvVars(opts) : [];
    if (unset.length === 0) throw e;
    const names = unset.map((n) => `\${${n}}`).join(', ');
    throw new ConfigError(`config file ${opts.configFile}: environment variable${unset.length > 1 ? 's' : ''} ${names} not set (read as empty); ${(e as Error).message}`);
  }
}
