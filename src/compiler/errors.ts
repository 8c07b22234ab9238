// Compile errors in OPA's shape: {code, message, location}, collected into one
// RegoCompileError whose message reads like OPA's ("1 error occurred: f.rego:3: rego_unsafe_var_error: var x is unsafe").

import type { Location, RegoErrorDetail } from '../lang/ast.js';

export type CompileErrorCode =
  | 'rego_compile_error'
  | 'rego_unsafe_var_error'
  | 'rego_recursion_error'
  | 'rego_type_error'
  | 'rego_parse_error';

export function compileError(code: CompileErrorCode, message: string, loc?: Location): RegoErrorDetail {
  const d: RegoErrorDetail = { code, message };
  if (loc) d.location = { file: loc.file, row: loc.row, col: loc.col };
  return d;
}

/** Argument type errors carry OPA's have/want details, printed on indented lines. */
export interface ArgErrDetails {
  have: string[];
  want: string;
}

export function typeError(message: string, have: string[], want: string, loc?: Location): RegoErrorDetail {
  const d = compileError('rego_type_error', message, loc);
  d.details = { have, want } satisfies ArgErrDetails;
  return d;
}

/**
 * Details with the lines OPA prints under the message (match error's left/right, undefined
 * ref's caret): the lines are text only, kept out of the JSON form of the details.
 */
export function withLines<T extends object>(details: T, lines: string[]): T {
  Object.defineProperty(details, 'lines', { value: lines, enumerable: false });
  return details;
}

function detailText(e: RegoErrorDetail): string {
  const where = e.location ? (e.location.file ? `${e.location.file}:${e.location.row}: ` : `${e.location.row}:${e.location.col}: `) : '';
  let out = `${where}${e.code}: ${e.message}`;
  const d = e.details as Partial<ArgErrDetails> | undefined;
  if (d && Array.isArray(d.have) && typeof d.want === 'string') out += `\n\thave: (${d.have.join(', ')})\n\twant: ${d.want}`;
  const lines = (e.details as { lines?: unknown } | undefined)?.lines;
  if (Array.isArray(lines)) for (const l of lines) out += `\n\t${String(l)}`;
  return out;
}

/** OPA's text for a list of errors: "1 error occurred: ..." or "N errors occurred:\n...". */
export function formatErrors(errors: RegoErrorDetail[]): string {
  const head = errors.length === 1 ? '1 error occurred: ' : `${errors.length} errors occurred:\n`;
  return head + errors.map(detailText).join('\n');
}

export class RegoCompileError extends Error {
  readonly code = 'rego_compile_error';
  readonly errors: RegoErrorDetail[];
  constructor(errors: RegoErrorDetail[]) {
    super(formatErrors(errors));
    this.name = 'RegoCompileError';
    this.errors = errors;
  }
}
