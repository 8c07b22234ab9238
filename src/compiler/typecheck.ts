// Call checks: every called function exists (a built-in or a user function) and is
// called with a number of arguments it accepts (inputs, or inputs plus one output).

import type { Body, RegoErrorDetail, Term } from '../lang/ast.js';
import { declarationIn } from './builtins/index.js';
import { compileError, typeError } from './errors.js';
import { typeOf, typeString } from './const-types.js';
import { refName } from './terms.js';
import type { CompiledRule, RuleNode } from './tree.js';
import { walkBody, walkTerm } from './walk.js';

const SPECIAL = new Set(['eq', 'assign', 'print']);

export function checkCalls(body: Body, root: RuleNode, errors: RegoErrorDetail[], rule?: CompiledRule): void {
  const visit = {
    call(op: Term, args: Term[], at: { location?: Term['location'] }) {
      const loc = at.location ?? op.location;
      if (op.type === 'ref' && op.value[0]?.type === 'var' && op.value[0].value === 'data') {
        const path: string[] = [];
        for (const t of op.value.slice(1)) if (t.type === 'string') path.push(t.value);
        const node = path.length === op.value.length - 1 ? root.find(path) : undefined;
        const name = 'data.' + path.join('.');
        if (!node || !node.isFunction) {
          errors.push(compileError('rego_type_error', `undefined function ${name}`, loc));
          return;
        }
        const n = node.arity;
        if (args.length !== n && args.length !== n + 1) errors.push(compileError('rego_type_error', `function ${name} has arity ${n}, got ${args.length} arguments`, loc));
        return;
      }
      const name = refName(op);
      if (!name) return;
      if (SPECIAL.has(name)) return;
      const allowed = root.allowedBuiltins;
      const b = allowed && !allowed.has(name) ? undefined : declarationIn(root.builtins, name);
      // Deprecated built-ins exist (as in OPA's capabilities); v1 modules get OPA's
      // "deprecated built-in function calls" error from a later stage (module-checks.ts).
      if (!b) {
        errors.push(compileError('rego_type_error', `undefined function ${name}`, loc));
        return;
      }
      if (b.decl.variadic) return;
      const n = b.decl.args?.length ?? 0;
      if (args.length !== n && !(args.length === n + 1 && b.decl.result)) {
        const have = args.map((a) => typeString(typeOf(a) ?? { type: 'any' }));
        errors.push(typeError(`${name}: arity mismatch`, have, `(${(b.decl.args ?? []).map(typeString).join(', ')})`, loc));
      }
    },
  };
  walkBody(body, visit);
  if (rule) for (const t of [rule.key, rule.value, ...rule.suffix]) if (t) walkTerm(t, visit);
}
