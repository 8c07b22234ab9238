import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { opaLogOptions } from '../../src/server/log-shape.js';

describe('opaLogOptions', () => {
  it('writes OPA\'s entry shape: level as a word, an RFC 3339 time, msg, no pid or hostname', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = pino(opaLogOptions('debug'), sink);
    log.debug({ req_id: 1 }, 'Received request.');
    log.info('Server shutdown.');
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries.map((e) => Object.keys(e).sort())).toEqual([
      ['level', 'msg', 'req_id', 'time'],
      ['level', 'msg', 'time'],
    ]);
    expect(entries.map((e) => e['level'])).toEqual(['debug', 'info']);
    for (const e of entries) expect(e['time']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
