// Lint: typescript-eslint's recommended rules, and the layer rule that keeps imports
// flowing down the floors of ../shared/DESIGN.md (value at the ground; storage and lang on
// it; compiler; eval; partial; engine; bundle, server, plugins, health; cli; index.ts).
import tseslint from 'typescript-eslint';
import { layersPlugin } from './lint/layers.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'scratch/**', 'test/**/fixtures/**', 'bench/lib/*.d.ts'] },
  ...tseslint.configs.recommended,
  {
    plugins: { layers: layersPlugin },
    rules: {
      'layers/imports-flow-down': 'error',
      // walking a tree from `this` (let n = this; n = n.parent) is the clearest loop there is
      '@typescript-eslint/no-this-alias': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  // tests read JSON replies and fixtures loosely typed
  { files: ['test/**', 'bench/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
