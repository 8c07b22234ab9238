// Writing template strings back as `$"..."` / `` $`...` ``, as opa fmt does: literal
// text re-escaped (JSON escapes in the double-quoted form, `\{` for a literal brace in
// both), each expression in braces, and constants written in braces (`{1}`, `{"x"}`)
// folded into the text, since OPA's AST keeps them as plain parts.

import type { TemplateString } from '../ast.js';
import { escapeTemplateText } from '../terms.js';
import { writeExpr } from './body.js';
import type { Writer } from './writer.js';

export function writeTemplate(w: Writer, ts: TemplateString): void {
  const quote = ts.multiLine ? '`' : '"';
  w.write('$' + quote);
  for (const p of ts.parts) {
    if ('terms' in p) {
      w.write('{');
      writeExpr(w, p);
      w.write('}');
    } else if (p.type === 'string') {
      w.write(escapeTemplateText(ts.multiLine ? p.value : JSON.stringify(p.value).slice(1, -1)));
    } else if (p.type === 'number') w.write(p.value);
    else if (p.type === 'boolean') w.write(String(p.value));
    else if (p.type === 'null') w.write('null');
  }
  w.write(quote);
}
