// Typed storage errors with OPA's codes and messages, so the HTTP layer can map them to
// the same status codes and bodies OPA gives (storage_not_found_error -> 404, ...).

export type StorageErrorCode =
  | 'storage_internal_error'
  | 'storage_not_found_error'
  | 'storage_write_conflict_error'
  | 'storage_invalid_patch_error'
  | 'storage_invalid_txn_error';

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  /** The message without the code prefix (OPA's `storage.Error.Message`). */
  readonly detail: string;

  constructor(code: StorageErrorCode, detail: string) {
    // OPA's Error() text: "<code>: <message>", or just the code when there is no message.
    super(detail ? `${code}: ${detail}` : code);
    this.name = 'StorageError';
    this.code = code;
    this.detail = detail;
  }
}

export const DOES_NOT_EXIST = 'document does not exist';
export const ARRAY_INDEX_TYPE = 'array index must be integer';
export const OUT_OF_RANGE = 'array index out of range';

export function isStorageError(e: unknown, code?: StorageErrorCode): e is StorageError {
  return e instanceof StorageError && (code === undefined || e.code === code);
}

/** "<path>: <hint>", as OPA's NewNotFoundErrorWithHint. */
export function notFound(pathText: string, hint = DOES_NOT_EXIST): StorageError {
  return new StorageError('storage_not_found_error', `${pathText}: ${hint}`);
}

/** OPA's bare NotFoundErr (no path in the message), used by the write path. */
export function notFoundBare(): StorageError {
  return new StorageError('storage_not_found_error', DOES_NOT_EXIST);
}

export function writeConflict(pathText: string): StorageError {
  return new StorageError('storage_write_conflict_error', pathText);
}

export function invalidPatch(message: string): StorageError {
  return new StorageError('storage_invalid_patch_error', message);
}
