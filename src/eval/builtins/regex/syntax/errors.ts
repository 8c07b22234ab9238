// Go's regexp/syntax error, worded as Go words it: code and offending fragment.

export class GoRegexError extends Error {}

export const fail = (code: string, expr: string): GoRegexError => new GoRegexError(`error parsing regexp: ${code}: \`${expr}\``);
