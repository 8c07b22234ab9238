// `regolith version`: version and build information, in the shape of `opa version`.

import { command } from '../command.js';
import { out } from '../io.js';
import { regolithVersion } from '../version-info.js';

const versionCommand = command({
  name: 'version',
  description: 'Print the version of regolith',
  examples: ['regolith version'],
});

export default versionCommand.action(() => {
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
