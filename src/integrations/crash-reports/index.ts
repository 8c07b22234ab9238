// Native crash reports as events (type: crash_report): a device or a crash collector POSTs
// a Tombstone protobuf (Content-Type: application/x-protobuf) to /v1/events/<name>; the
// configured rule (the shipped one: data.regolith.crash_triage.decision) sees it decoded
// into the JSON document decode.ts describes. No settings of its own.

import type { AdapterType, EventMapping } from '../../plugins/adapters/types.js';
import { EventError } from '../../plugins/adapters/types.js';
import { decodeTombstone, TombstoneError } from './decode.js';

export const CRASH_CONTENT_TYPE = 'application/x-protobuf';

export const crashReport: AdapterType<Record<string, never>> = {
  kind: 'event',
  settings: () => ({}),
  event(): EventMapping {
    return {
      input(ev) {
        const ct = (ev.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (ct !== CRASH_CONTENT_TYPE) {
          throw new EventError(`a crash report is sent as Content-Type: ${CRASH_CONTENT_TYPE}, not ${ct ? `"${ct}"` : 'without one'}`, 415);
        }
        try {
          return decodeTombstone(ev.body);
        } catch (e) {
          if (e instanceof TombstoneError) throw new EventError(e.message, 400);
          throw e;
        }
      },
    };
  },
};
