// The targets of data filtering, as the Accept header of /v1/compile/{path} names them
// (OPA 1.9+ `application/vnd.opa.*`, and the older `application/vnd.styra.*` spellings).

export type SQLDialect = 'postgresql' | 'mysql' | 'sqlserver' | 'sqlite';
export type UCASTVariant = 'all' | 'minimal' | 'prisma' | 'linq';

export type Target = ({ kind: 'sql'; dialect: SQLDialect } | { kind: 'ucast'; variant: UCASTVariant } | { kind: 'multi' }) & {
  /** The media type as asked for (answered with the same vendor spelling). */
  mediaType?: string;
};

export const DIALECTS: readonly SQLDialect[] = ['postgresql', 'mysql', 'sqlserver', 'sqlite'];

/** The target of one media type, or undefined when it names none. */
export function parseTarget(mediaType: string): Target | undefined {
  const type = mediaType.trim().toLowerCase();
  const m = /^application\/vnd\.(?:opa|styra)\.([a-z.]+)\+json$/.exec(type);
  if (!m) return undefined;
  const name = m[1]!;
  if (name === 'multitarget') return { kind: 'multi', mediaType: type };
  const [family, variant] = name.split('.');
  if (family === 'sql' && (DIALECTS as readonly string[]).includes(variant ?? '')) return { kind: 'sql', dialect: variant as SQLDialect, mediaType: type };
  if (family === 'ucast' && ['all', 'minimal', 'prisma', 'linq'].includes(variant ?? '')) return { kind: 'ucast', variant: variant as UCASTVariant, mediaType: type };
  return undefined;
}

/** A multitarget request's dialect names (`ucast+prisma`, `sql+postgresql`, or bare names) as targets. */
export function parseDialect(name: string): Target | undefined {
  const n = name.trim().toLowerCase();
  const [family, variant] = n.includes('+') ? n.split('+') : n === 'ucast' ? ['ucast', 'all'] : ['sql', n];
  if (family === 'sql' && (DIALECTS as readonly string[]).includes(variant ?? '')) return { kind: 'sql', dialect: variant as SQLDialect };
  if (family === 'ucast' && ['all', 'minimal', 'prisma', 'linq'].includes(variant ?? '')) return { kind: 'ucast', variant: variant as UCASTVariant };
  return undefined;
}
