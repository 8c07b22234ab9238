// `regolith version`: version and build information, in the shape of `opa version`.

import { command } from '../command.js';
import { refused } from '../flags.js';
import { out } from '../io.js';
import { buildInfo, regolithVersion } from '../version-info.js';

const versionCommand = command({
  name: 'version',
  description: 'Print the version of regolith',
  flags: [
    refused('-c, --check', 'check for latest release (not supported)', () =>
      '--check is not supported: regolith does not contact any release server; compare `regolith version` with the release you install from'),
  ],
  examples: ['regolith version'],
});

export default versionCommand.action(() => {
  const build = buildInfo();
  out(
    [
      `Version: ${regolithVersion()}`,
      `Build Commit: ${build.commit}`,
      `Build Timestamp: ${build.timestamp}`,
      `Build Hostname: ${build.hostname}`,
      `Node Version: ${process.version}`,
      `Platform: ${process.platform}/${process.arch}`,
      'Rego Version: v1',
      'WebAssembly: unavailable',
    ].join('\n'),
  );
});
