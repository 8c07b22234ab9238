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

function detailText(e: RegoErrorDetail): string {
  const where = e.location ? `${e.location.file || ''}:${e.location.row}: ` : '';
  return `${where}${e.code}: ${e.message}`;
}

export class RegoCompileError extends Error {
  readonly code = 'rego_compile_error';
  readonly errors: RegoErrorDetail[];
  constructor(errors: RegoErrorDetail[]) {
    const head = errors.length === 1 ? '1 error occurred: ' : `${errors.length} errors occurred:\n`;
    super(head + errors.map(detailText).join('\n'));
    this.name = 'RegoCompileError';
    this.errors = errors;
  }
}
