// The adapter types a configuration may name. The mechanism knows none itself: each
// integration (src/integrations/<api>/) registers its type here, and the runtime has them
// registered (src/integrations/index.ts) before it reads a configuration.

import type { AdapterType } from './types.js';

export const ADAPTER_TYPES: Record<string, AdapterType> = {};

/** Makes `type: <name>` in a configuration's adapters mean this adapter type. */
export function registerAdapterType(name: string, type: AdapterType): void {
  ADAPTER_TYPES[name] = type;
}
