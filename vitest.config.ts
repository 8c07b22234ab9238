import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The machine has two cores; more workers only thrash.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'all', include: ['test/**/*.test.ts'] } },
      {
        // The evaluator's own tests once more, answered by generated code from the first run
        // (test/setup/codegen-first-run.ts): a wrong answer there would otherwise hide behind
        // the closures, which answer a site's first 16 runs.
        extends: true,
        test: {
          name: 'generated',
          include: ['test/eval/**/*.test.ts', 'test/partial/**/*.test.ts', 'test/engine/**/*.test.ts', 'test/compiler/**/*.test.ts'],
          setupFiles: ['test/setup/codegen-first-run.ts'],
          // read by test/eval/closures/codegen-project.test.ts: the setup must reach the code the tests run
          provide: { codegenFirstRun: true },
        },
      },
    ],
  },
});
