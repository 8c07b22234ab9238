// Parse errors shaped as OPA reports them: a list of {code, message, location} and a
// summary message "N error(s) occurred: file:row: code: message".

import type { RegoErrorDetail } from './ast.js';

export const PARSE_ERROR = 'rego_parse_error';

function formatDetail(e: RegoErrorDetail): string {
  const loc = e.location;
  const prefix = loc ? `${loc.file || ''}:${loc.row}: ` : '';
  return `${prefix}${e.code}: ${e.message}`;
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
