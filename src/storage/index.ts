// The transactional document store (see store.ts) and its helpers.
export { Store, Snapshot, WriteTxn } from './store.js';
export type { PolicyRecord, CommitEvent, DataChange, PolicyChange, Trigger, StoreOptions } from './store.js';
export { StorageError, isStorageError } from './errors.js';
export type { StorageErrorCode } from './errors.js';
export {
  parsePath,
  parsePathEscaped,
  parsePatchPathEscaped,
  pathToString,
  pathEscape,
  pathUnescape,
  pathHasPrefix,
  parseArrayIndex,
} from './path.js';
export type { StoragePath } from './path.js';
export { applyWrite, readAt, existsAt, type WriteOp } from './tree.js';
export { DirectoryPersistence } from './persist.js';
export type { Persistence, PersistedState } from './persist.js';
export { readFileAtomic, writeFileAtomic } from './atomic-write.js';
