// Each of the time/net/crypto/jwt/graphql/http/aws/opa built-ins must declare exactly what
// OPA's capabilities file declares (decl and flags).

import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { getBuiltin } from '../../../src/eval/builtins/index.js';

interface Cap {
  name: string;
  decl: unknown;
  nondeterministic?: boolean;
  deprecated?: boolean;
  infix?: string;
  relation?: boolean;
}

const caps = (JSON.parse(fs.readFileSync('../shared/opa-capabilities-v1.20.2.json', 'utf8')) as { builtins: Cap[] }).builtins;
const MINE = ['time.', 'net.', 'crypto.', 'io.jwt.', 'graphql.', 'http.', 'providers.aws.', 'opa.runtime'];
const mine = caps.filter((c) => MINE.some((p) => c.name.startsWith(p)));

describe('systems built-ins declarations', () => {
  it('covers every OPA built-in of these categories', () => {
    expect(mine.length).toBe(59);
    expect(mine.filter((c) => !getBuiltin(c.name)).map((c) => c.name)).toEqual([]);
  });
  for (const c of mine) {
    it(c.name, () => {
      const d = getBuiltin(c.name);
      expect(d, 'registered').toBeDefined();
      expect(JSON.parse(JSON.stringify(d!.decl))).toEqual(c.decl);
      expect(!!d!.nondeterministic).toBe(!!c.nondeterministic);
      expect(!!d!.deprecated).toBe(!!c.deprecated);
      expect(d!.infix).toBe(c.infix);
      expect(!!d!.relation).toBe(!!c.relation);
    });
  }
});
