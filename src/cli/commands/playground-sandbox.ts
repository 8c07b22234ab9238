// `regolith __playground-sandbox`: the child process of the console's playground (see
// src/console/playground/sandbox.ts). It evaluates one request at a time, as the server's
// /ui/api/eval would in-process, and answers the status and JSON text.

import { evaluatePlayground } from '../../console/playground/evaluate.js';
import { HttpError } from '../../server/index.js';
import { parseJSON } from '../../value/index.js';
import { command } from '../command.js';

async function playgroundSandboxAction(): Promise<void> {
  if (!process.send) throw new Error('__playground-sandbox runs only as a child of the server');
  process.on('message', (m: { body: string }) => {
    void (async () => {
      try {
        process.send!({ status: 200, body: await evaluatePlayground(parseJSON(m.body)) });
      } catch (e) {
        const h = e instanceof HttpError ? e : new HttpError(500, 'internal_error', (e as Error).message);
        process.send!({ status: h.status, body: JSON.stringify(h.body) + '\n' });
      }
    })();
  });
  process.on('disconnect', () => process.exit(0));
  await new Promise(() => {});
}

export default command({
  name: '__playground-sandbox',
  description: 'the web console playground evaluation process (internal)',
  hidden: true,
}).action(playgroundSandboxAction);
