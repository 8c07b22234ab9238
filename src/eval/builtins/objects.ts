import { registerBuiltins } from './registry.js';

registerBuiltins([]);
