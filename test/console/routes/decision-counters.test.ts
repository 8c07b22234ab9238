// GET /ui/api/decisions/counters: the decision log's uploaded, dropped and buffered events
// and its last upload error, from the plugin's upload status.

import { afterEach, describe, expect, it } from 'vitest';
import type { ConsoleOptions } from '../../../src/console/index.js';
import { fakeBuild, get, startUi, type UiServer } from './helpers.js';

let s: UiServer | undefined;
const build = fakeBuild();
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const feed = (extra: Partial<NonNullable<ConsoleOptions['decisions']>> = {}): ConsoleOptions['decisions'] => ({ recent: () => [], subscribe: () => () => {}, ...extra });

describe('GET /ui/api/decisions/counters', () => {
  it('reads the counters and the last error of the upload status', async () => {
    const metrics = {
      counter_decision_logs_uploaded: 120,
      gauge_decision_logs_buffered_events: 7,
      counter_decision_logs_dropped_buffer_size_limit_bytes_exceeded: 3,
      counter_decision_logs_dropped_rate_limit_exceeded: 2,
      counter_decision_logs_dropped_event_too_large: 1,
    };
    s = await startUi({ assetsDir: build.dir, decisions: feed({ uploadStatus: () => ({ metrics, code: 'decision_logs_error', message: 'log upload failed, server replied with HTTP 503' }) }) });
    const r = await get(s, '/ui/api/decisions/counters');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      enabled: true,
      available: true,
      uploaded: 120,
      buffered: 7,
      dropped: { buffer_size_limit: 3, rate_limit: 2, event_too_large: 1 },
      error: { code: 'decision_logs_error', message: 'log upload failed, server replied with HTTP 503' },
    });
  });

  it('says when the feed has no counters, and when logging is off', async () => {
    s = await startUi({ assetsDir: build.dir, decisions: feed() });
    expect((await get(s, '/ui/api/decisions/counters')).json).toEqual({ enabled: true, available: false });
    await s.close();
    s = await startUi({ assetsDir: build.dir });
    expect((await get(s, '/ui/api/decisions/counters')).json).toMatchObject({ enabled: false });
  });
});
