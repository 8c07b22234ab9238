// OPA's log entry shape for pino: {"level":"info","time":RFC 3339,"msg":...}, no pid or
// hostname. The runtime's logger (src/runtime/logger.ts) and the server's default logger
// (a library caller that gives none) both use it, so no stream mixes pino's own shape in.

import type { LoggerOptions } from 'pino';

export function opaLogOptions(level: string): LoggerOptions {
  return {
    level,
    base: undefined,
    messageKey: 'msg',
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    formatters: { level: (label: string) => ({ level: label }) },
  };
}
