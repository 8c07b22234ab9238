// `regolith __playground-sandbox` (hidden): the console playground's evaluation child,
// started by the server itself (src/console/sandbox.ts); not for users.

import type { Command } from 'commander';
import { lazyAction } from './lazy.js';

export function registerPlaygroundSandbox(program: Command): Command {
  return program
    .command('__playground-sandbox', { hidden: true })
    .description('the web console playground evaluation process (internal)')
    .action(lazyAction(async () => (await import('../commands/playground-sandbox.js')).playgroundSandboxAction));
}
