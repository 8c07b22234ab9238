// Rego errors as `opa check`/`opa parse` print them: OPA's summary line per error with
// the offending source line and a caret when the parser gives one, or the JSON document
// {"errors": [{message, code, location, details}]}.

import type { RegoErrorDetail } from '../engine/syntax.js';
import { formatErrors } from '../engine/syntax.js';

function caret(e: RegoErrorDetail): string {
  const d = e.details as { line?: unknown; idx?: unknown; have?: unknown; want?: unknown } | undefined;
  // Type errors of built-in calls: OPA prints the argument types on indented lines.
  if (d && Array.isArray(d.have) && typeof d.want === 'string') return `\n\thave: (${d.have.join(', ')})\n\twant: ${d.want}`;
  if (!d || typeof d.line !== 'string' || typeof d.idx !== 'number') return '';
  return `\n\t${d.line}\n\t${' '.repeat(Math.max(0, d.idx))}^`;
}

export function prettyErrors(errors: RegoErrorDetail[]): string {
  if (errors.length === 1) return formatErrors(errors) + caret(errors[0]!);
  return `${errors.length} errors occurred:\n${errors
    .map((e) => formatErrors([e]).replace(/^1 error occurred: /, '') + caret(e))
    .join('\n')}`;
}

export function jsonErrors(errors: RegoErrorDetail[]): string {
  const list = errors.map((e) => {
    const o: Record<string, unknown> = { message: e.message, code: e.code };
    if (e.location) o.location = { file: e.location.file, row: e.location.row, col: e.location.col };
    if (e.details !== undefined) o.details = e.details;
    return o;
  });
  return JSON.stringify({ errors: list }, null, 2);
}
