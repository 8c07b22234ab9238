// The server's logger for `regolith run`: pino writing to stderr as OPA does, with OPA's
// entry shape ({"level":"info","msg":...,"time":RFC3339}) for --log-format json, and a
// one-line human form for --log-format text.

import pino, { type Logger } from 'pino';
import { opaLogOptions } from '../server/log-shape.js';

function textLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { level, time, msg, ...rest } = entry;
  const fields = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v)}`)
    .join(' ');
  return `${String(time)} ${String(level).toUpperCase()} ${String(msg ?? '')}${fields ? ' ' + fields : ''}\n`;
}

export function createRunLogger(level: string, format: string): Logger {
  const opts = opaLogOptions(level);
  if (format === 'json') return pino(opts, pino.destination({ fd: 2, sync: true }));
  const stream = {
    write(line: string): void {
      process.stderr.write(format === 'text' ? textLine(line) : JSON.stringify(JSON.parse(line), null, 2) + '\n');
    },
  };
  return pino(opts, stream);
}
