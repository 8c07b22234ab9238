// The console's status data (GET /ui/api/status) carries the discovery bundle's status
// when the status document has one, beside the discovery plugin's state.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBuild, get, startUi, type UiServer } from '../../console/routes/helpers.js';

describe('GET /ui/api/status with discovery', () => {
  let build: ReturnType<typeof fakeBuild>;
  let s: UiServer;
  beforeAll(async () => {
    build = fakeBuild();
    s = await startUi(
      { assetsDir: build.dir },
      {
        pluginStatus: () => ({ discovery: { state: 'OK' }, bundle: { state: 'OK' } }),
        status: () => ({ labels: {}, bundles: {}, discovery: { name: 'discovery', active_revision: 'd7', code: 'bundle_error', message: 'undefined configuration' } }),
      },
    );
  });
  afterAll(async () => {
    await s.close();
    build.remove();
  });

  it('shows the discovery bundle and the discovery plugin', async () => {
    const r = await get(s, '/ui/api/status');
    expect(r.status).toBe(200);
    expect(r.json.discovery).toEqual({ name: 'discovery', active_revision: 'd7', code: 'bundle_error', message: 'undefined configuration' });
    expect(r.json.plugins.discovery).toEqual({ state: 'OK' });
  });
});
