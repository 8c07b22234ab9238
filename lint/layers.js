// The layer rule: a module under src/<floor>/ may import only from its own floor and the
// floors it sits on. The table is the architecture; `npm test` runs it through ESLint.
import { dirname, relative, resolve } from 'node:path';

/** floor -> floors it may import (besides itself). */
export const FLOORS = {
  value: [],
  storage: ['value'],
  lang: ['value'],
  compiler: ['lang', 'value'],
  eval: ['compiler', 'lang', 'value'],
  partial: ['eval', 'compiler', 'lang', 'value'],
  engine: ['partial', 'eval', 'compiler', 'lang', 'storage', 'value'],
  bundle: ['engine', 'storage', 'value'],
  server: ['engine', 'storage', 'value'],
  plugins: ['bundle', 'engine', 'storage', 'value'],
  console: ['server', 'plugins', 'bundle', 'engine', 'storage', 'value'],
  integrations: ['plugins', 'bundle', 'engine', 'storage', 'value'],
  runtime: ['console', 'integrations', 'server', 'plugins', 'bundle', 'engine', 'storage', 'value'],
  cli: ['runtime', 'console', 'integrations', 'server', 'plugins', 'bundle', 'engine', 'storage', 'value'],
  '(index)': ['engine', 'server'],
};

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');

/** The floor of a file under src/, or undefined for files elsewhere (tests, bench). */
export function floorOf(file) {
  const rel = relative(resolve(ROOT, 'src'), file);
  if (rel.startsWith('..')) return undefined;
  const [first, ...rest] = rel.split(/[\\/]/);
  return rest.length === 0 ? '(index)' : first;
}

const rule = {
  meta: { type: 'problem', schema: [], messages: { up: "src/{{from}} may not import src/{{to}} ('{{spec}}'): imports flow down the layers ({{from}} may use {{allowed}})." } },
  create(context) {
    const file = context.filename;
    const from = floorOf(file);
    if (!from) return {};
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const to = floorOf(resolve(dirname(file), spec));
      if (!to || to === from) return;
      const allowed = FLOORS[from] ?? [];
      if (!allowed.includes(to)) context.report({ node, messageId: 'up', data: { from, to, spec, allowed: allowed.join(', ') || 'nothing else' } });
    };
    return {
      ImportDeclaration: (n) => check(n.source, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n.source, n.source.value),
      ExportAllDeclaration: (n) => check(n.source, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n.source, n.source.value),
    };
  },
};

export const layersPlugin = { rules: { 'imports-flow-down': rule } };
