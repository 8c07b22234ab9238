// Optional persistence of the store to a directory. Each commit writes the whole state
// to a new file, fsyncs it, and renames it over the old one, so a crash leaves either the
// old state or the new one on disk, never a torn file.

import * as path from 'node:path';
import { toJSONText, isPlainObject } from '../value/index.js';
import type { PlainObject, Value } from '../value/index.js';
import { parseJSON } from '../value/index.js';
import { readFileAtomic, writeFileAtomic } from './atomic-write.js';

export interface PersistedState {
  data: PlainObject;
  /** Policy id -> module source text. */
  policies: Record<string, string>;
}

export interface Persistence {
  load(): PersistedState | undefined;
  save(state: PersistedState): void;
}

const FILE = 'store.json';

export class DirectoryPersistence implements Persistence {
  constructor(readonly dir: string) {}

  get file(): string {
    return path.join(this.dir, FILE);
  }

  load(): PersistedState | undefined {
    const raw = readFileAtomic(this.file);
    if (!raw) return undefined;
    const doc = parseJSON(raw.toString('utf8'), { maxDepth: 100_000 });
    if (!isPlainObject(doc) || !isPlainObject(doc['data'] ?? null) || !isPlainObject(doc['policies'] ?? null)) {
      throw new Error(`${this.file}: not a store file`);
    }
    const policies: Record<string, string> = {};
    for (const [id, raw] of Object.entries(doc['policies'] as PlainObject)) {
      if (typeof raw !== 'string') throw new Error(`${this.file}: policy ${id} is not text`);
      policies[id] = raw;
    }
    return { data: doc['data'] as PlainObject, policies };
  }

  save(state: PersistedState): void {
    const doc: Record<string, Value> = { format: 1, data: state.data, policies: state.policies };
    writeFileAtomic(this.file, toJSONText(doc as unknown as Value));
  }
}
