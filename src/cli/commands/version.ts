// `regolith version`: version and build information, in the shape of `opa version`.

import type { Command } from 'commander';
import { examples, out } from '../io.js';
import { regolithVersion } from '../version-info.js';

export function registerVersion(program: Command): Command {
  return program
    .command('version')
    .description('Print the version of regolith')
    .addHelpText('after', examples(['regolith version']))
    .action(() => {
      out(
        [
          `Version: ${regolithVersion()}`,
          `Build Commit: ${process.env.REGOLITH_BUILD_COMMIT ?? ''}`,
          `Build Timestamp: ${process.env.REGOLITH_BUILD_TIMESTAMP ?? ''}`,
          `Node Version: ${process.version}`,
          `Platform: ${process.platform}/${process.arch}`,
          'Rego Version: v1',
          'WebAssembly: unavailable',
        ].join('\n'),
      );
    });
}
