// Screenshots of the web console for the README (docs/images/ui-*.png, 1280x800): runs the
// browser tests (test/ui) with UI_SCREENSHOTS=1, which save them at the right moments.
// Needs `npm run build` first (dist/ui) and chromium at /usr/bin/chromium.

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const r = spawnSync(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/ui'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, UI_SCREENSHOTS: '1' },
});
if (r.status === 0) console.log('saved docs/images/ui-playground.png, ui-decisions.png, ui-impact.png, ui-status.png, ui-sign-in.png');
process.exit(r.status ?? 1);
