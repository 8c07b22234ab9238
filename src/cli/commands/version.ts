// `regolith version`: version and build information, in the shape of `opa version`.

import { out } from '../io.js';
import { regolithVersion } from '../version-info.js';

/** The `regolith version` action (its flags are declared in ../registry/version.ts). */
export const versionAction = () => {
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
};
