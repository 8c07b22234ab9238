// Setup of the "generated" test project (vitest.config.ts): every generated test run
// (src/eval/closures/codegen.ts) is made at its site's first run instead of its 17th, so that
// the evaluator's tests, most of which run a site a few times only, answer through the
// generated code wherever the generator applies; each file must still pass unchanged.
import { codegen } from '../../src/eval/closures/codegen.js';

codegen.warmup = 0;
