// Built-ins that only OPA's own test harness registers (never the product): the
// conformance cases call them, so the runner registers them the same way.

import { registerBuiltins } from '../../src/eval/builtins/registry.js';
import { T } from '../../src/eval/builtins/decl.js';
import { builtinError } from '../../src/eval/builtins/errors.js';

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

registerBuiltins([
  {
    // test.sleep("10ms"): blocks the evaluation for a Go duration (ms or s here).
    name: 'test.sleep',
    decl: T.fn([T.string], T.null),
    fn: ([d]) => {
      const m = typeof d === 'string' ? /^(\d+)(ms|s)$/.exec(d) : null;
      if (!m) throw builtinError(`invalid duration ${String(d)}`);
      Atomics.wait(sleepCell, 0, 0, Number(m[1]) * (m[2] === 's' ? 1000 : 1));
      return null;
    },
  },
]);
