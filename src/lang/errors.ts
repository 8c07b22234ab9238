// Parse errors shaped as OPA reports them: a list of {code, message, location} and a
// summary message "N error(s) occurred: file:row: code: message".

import type { RegoErrorDetail } from './ast.js';

export const PARSE_ERROR = 'rego_parse_error';

function formatDetail(e: RegoErrorDetail): string {
  const loc = e.location;
  const prefix = loc ? `${loc.file || ''}:${loc.row}: ` : '';
  // OPA's Error() appends its details' lines (type errors' carets, left/right types); they
  // are kept as a non-enumerable `lines` so the JSON form of the details stays OPA's.
  const lines = (e.details as { lines?: unknown } | undefined)?.lines;
  const tail = Array.isArray(lines) ? lines.map((l) => `\n\t${String(l)}`).join('') : '';
  return `${prefix}${e.code}: ${e.message}${tail}`;
}

/** Formats a list of errors like OPA's ast.Errors.Error(). */
export function formatErrors(errors: RegoErrorDetail[]): string {
  if (errors.length === 0) return 'no error(s)';
  if (errors.length === 1) return `1 error occurred: ${formatDetail(errors[0]!)}`;
  return `${errors.length} errors occurred:\n${errors.map(formatDetail).join('\n')}`;
}

export class RegoParseError extends Error {
  readonly errors: RegoErrorDetail[];
  constructor(errors: RegoErrorDetail[]) {
    super(formatErrors(errors));
    this.name = 'RegoParseError';
    this.errors = errors;
  }
}

export function parseErrorDetail(message: string, file: string, row: number, col: number): RegoErrorDetail {
  return { code: PARSE_ERROR, message, location: { file, row, col } };
}
