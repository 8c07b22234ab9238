// The build pipeline's notification webhook (type: pipeline_webhook): the job arrives as
// the value of `payload`; the configured rule sees the body as sent, so a policy reads
// `input.payload.branch`, `input.payload.outcome`, ...

import type { AdapterType, EventMapping, JSONValue } from '../../plugins/adapters/types.js';
import { EventError } from '../../plugins/adapters/types.js';

export const pipelineWebhook: AdapterType<Record<string, never>> = {
  kind: 'event',
  settings: () => ({}),
  event(): EventMapping {
    return {
      input(ev) {
        let body: JSONValue;
        try {
          body = JSON.parse(ev.body.toString('utf8')) as JSONValue;
        } catch (e) {
          throw new EventError(`the body is not JSON: ${(e as Error).message}`);
        }
        const payload = body && typeof body === 'object' && !Array.isArray(body) ? body['payload'] : undefined;
        if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new EventError('the body has no "payload" object (the job)');
        if (typeof payload['build_num'] !== 'number') throw new EventError('payload.build_num is missing: not a job notification');
        return body;
      },
    };
  },
};
