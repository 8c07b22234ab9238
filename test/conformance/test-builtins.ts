// Built-ins that only OPA's own test harness registers (never the product): the
// conformance cases call them, so the runner registers them the same way.

import { registerBuiltins } from '../../src/eval/builtins/registry.js';
import { declareBuiltins, T } from '../../src/compiler/builtins/index.js';
import { builtinError } from '../../src/eval/builtins/errors.js';

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

// test.sleep("10ms"): blocks the evaluation for a Go duration (ms or s here).
declareBuiltins([{ name: 'test.sleep', decl: T.fn([T.string], T.null) }]);
registerBuiltins([
  {
    name: 'test.sleep',
    fn: ([d]) => {
      const m = typeof d === 'string' ? /^(\d+)(ms|s)$/.exec(d) : null;
      if (!m) throw builtinError(`invalid duration ${String(d)}`);
      Atomics.wait(sleepCell, 0, 0, Number(m[1]) * (m[2] === 's' ? 1000 : 1));
      return null;
    },
  },
]);
