// OPA's conformance cases with every generated test run made at its site's first run (by
// default a site takes the closures for its first 16 runs, which most cases never pass), so
// that the generated code answers wherever the generator applies. Vitest gives each test file
// its own module graph: the setting stays in this file.
import { afterAll, expect } from 'vitest';
import { codegen } from '../../src/eval/closures/codegen.js';
import { OPA_CONFORMANCE_DIR } from '../opa-conformance.js';
import { conformanceEval } from './eval-suite.js';

codegen.warmup = 0;
conformanceEval('evaluation, generated test runs from the first run');

afterAll(() => {
  // the run means something only if generated code answered (61 sites on 2026-11-27: most
  // cases are one-expression queries, which the generator leaves to the closures)
  if (!OPA_CONFORMANCE_DIR) return; // skipped, with the line conformanceEval printed
  expect(codegen.built).toBeGreaterThan(40);
  console.log(`generated test runs made: ${codegen.built}`);
});
