// Keeping an adapter's last good document on disk (persist: true), so that a restarted
// server serves it before the external API answers again. Atomic like bundle persistence.

import * as path from 'node:path';
import { readFileAtomic, writeFileAtomic } from '../../storage/index.js';
import type { JSONValue } from './types.js';

export interface PersistedDocument {
  revision: string;
  document: JSONValue;
}

export class AdapterPersistence {
  constructor(readonly dir: string) {}

  private fileOf(name: string): string {
    return path.join(this.dir, 'adapters', encodeURIComponent(name), 'data.json');
  }

  save(name: string, doc: PersistedDocument): void {
    writeFileAtomic(this.fileOf(name), Buffer.from(JSON.stringify(doc)));
  }

  /** The persisted document; undefined when there is none; throws when it is unreadable. */
  load(name: string): PersistedDocument | undefined {
    const raw = readFileAtomic(this.fileOf(name));
    if (!raw) return undefined;
    const doc = JSON.parse(raw.toString('utf8')) as PersistedDocument;
    if (typeof doc?.revision !== 'string' || !('document' in doc)) throw new Error(`${this.fileOf(name)}: not a persisted adapter document`);
    return doc;
  }
}
