// What the REPL reads: the text typed (one line, or the lines of a buffered block) as OPA's
// ParseStatements would read it: a `package`, `import`s, rules, or a query. A text that is
// neither a query nor rules is a parse error, reported with the error of the reading that
// got further.

import { parseModule, parseQuery, RegoParseError, type Body, type Import, type Package, type RegoErrorDetail, type RegoVersion, type Rule } from '../../../engine/index.js';

export type Statement =
  | { kind: 'package'; package: Package; text: string }
  | { kind: 'import'; imports: Import[]; text: string }
  | { kind: 'rules'; rules: { rule: Rule; text: string }[] }
  | { kind: 'query'; body: Body; text: string };

export class StatementError extends Error {
  constructor(readonly errors: RegoErrorDetail[]) {
    super(errors.map((e) => e.message).join('\n'));
    this.name = 'StatementError';
  }
}

function furthest(e: RegoParseError, lineOffset: number): number {
  const loc = e.errors[0]?.location;
  return loc ? (loc.row - lineOffset) * 100_000 + loc.col : 0;
}

/** Reads the text typed at the prompt as the statements it holds. Throws StatementError. */
export function parseStatement(text: string, regoVersion: RegoVersion): Statement {
  const trimmed = text.trim();
  if (/^package\s/.test(trimmed)) {
    try {
      return { kind: 'package', package: parseModule(trimmed + '\n', { filename: '', regoVersion }).package, text: trimmed };
    } catch (e) {
      if (e instanceof RegoParseError) throw new StatementError(e.errors);
      throw e;
    }
  }
  if (/^import\s/.test(trimmed)) {
    try {
      return { kind: 'import', imports: parseModule(`package repl\n${trimmed}\n`, { filename: '', regoVersion }).imports, text: trimmed };
    } catch (e) {
      if (e instanceof RegoParseError) throw new StatementError(e.errors.map((x) => shift(x, 1)));
      throw e;
    }
  }
  let queryError: RegoParseError;
  try {
    return { kind: 'query', body: parseQuery(text, { regoVersion }), text: trimmed };
  } catch (e) {
    if (!(e instanceof RegoParseError)) throw e;
    queryError = e;
  }
  const header = 'package repl\n';
  const moduleText = header + text;
  try {
    const m = parseModule(moduleText, { filename: '', regoVersion });
    if (m.rules.length === 0) throw queryError;
    return { kind: 'rules', rules: m.rules.map((rule) => ({ rule, text: rule.location?.text ?? '' })) };
  } catch (e) {
    if (!(e instanceof RegoParseError)) throw e;
    const best = e === queryError || furthest(queryError, 0) >= furthest(e, 1) ? queryError.errors : e.errors.map((x) => shift(x, 1));
    throw new StatementError(best);
  }
}

/** An error of the text read after a header line, located in the text as typed. */
function shift(e: RegoErrorDetail, lines: number): RegoErrorDetail {
  return e.location ? { ...e, location: { ...e.location, row: e.location.row - lines } } : e;
}
