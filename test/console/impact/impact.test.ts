// Impact analysis: events recorded from real evaluations (RegolithEngine + the decision log's
// own buildEvent/encodeEvent, so the lines have exactly the logged shape) replayed against
// candidates, checked against an independent JS statement of both policies.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, writeBundle } from '../../../src/bundle/index.js';
import type { Value } from '../../../src/engine/index.js';
import { buildEvent, encodeEvent } from '../../../src/plugins/logs/event.js';
import { classify, diffJSON, loadCandidate, parseNDJSON, replay, type Candidate, type ChangeKind } from '../../../src/console/impact/index.js';

const USERS = ['alice', 'bob'];

// The policy the decisions are recorded under, and the candidate: the amount limit moved
// from 100 to 70 (allow->deny), auditors may approve small amounts (deny->allow), the "big"
// tier starts at 40 instead of 50 (value), and the reason appears from 70 (undefined <-> string).
const OLD = `package shop
import rego.v1
default allow := false
allow if {
  input.amount <= 100
  input.user in data.users
}
allow if input.role == "admin"
tier := "big" if input.amount > 50
else := "small"
reason := "too much" if input.amount > 100
decision := {"allow": allow, "tier": tier}
tags contains "large" if input.amount > 50
tags contains input.role
`;

const NEW = `package shop
import rego.v1
default allow := false
allow if {
  input.amount <= 70
  input.user in data.users
}
allow if input.role == "admin"
allow if {
  input.role == "auditor"
  input.amount < 10
}
tier := "big" if input.amount > 40
else := "small"
reason := "too much" if input.amount > 70
decision := {"allow": allow, "tier": tier}
tags contains "large" if input.amount > 50
tags contains input.role
`;

interface Input {
  amount: number;
  user: string;
  role: string;
}

// The same policies stated in JS.
const js = {
  old: {
    allow: (i: Input) => (i.amount <= 100 && USERS.includes(i.user)) || i.role === 'admin',
    tier: (i: Input) => (i.amount > 50 ? 'big' : 'small'),
    reason: (i: Input) => (i.amount > 100 ? 'too much' : undefined),
  },
  new: {
    allow: (i: Input) => (i.amount <= 70 && USERS.includes(i.user)) || i.role === 'admin' || (i.role === 'auditor' && i.amount < 10),
    tier: (i: Input) => (i.amount > 40 ? 'big' : 'small'),
    reason: (i: Input) => (i.amount > 70 ? 'too much' : undefined),
  },
};

function expectedKind(path: string, i: Input): ChangeKind | undefined {
  const flip = (a: boolean, b: boolean): ChangeKind | undefined => (a === b ? undefined : a ? 'allow->deny' : 'deny->allow');
  const [o, n] = [js.old, js.new];
  switch (path) {
    case 'shop/allow':
      return flip(o.allow(i), n.allow(i));
    case 'shop/decision':
      return flip(o.allow(i), n.allow(i)) ?? (o.tier(i) !== n.tier(i) ? 'value' : undefined);
    case 'shop/tier':
    case 'shop/reason':
      return o[path.slice(5) as 'tier' | 'reason'](i) !== n[path.slice(5) as 'tier' | 'reason'](i) ? 'value' : undefined;
    default:
      return undefined; // shop/tags does not change
  }
}

const PATHS = ['shop/allow', 'shop/decision', 'shop/tier', 'shop/reason', 'shop/tags'];
const DATA = { users: USERS };

const inputArb = fc.record({
  amount: fc.integer({ min: 0, max: 150 }),
  user: fc.constantFrom('alice', 'bob', 'eve'),
  role: fc.constantFrom('admin', 'auditor', 'user'),
});

let oldC: Candidate;
let newC: Candidate;

/** NDJSON lines as the decision log writes them, from real evaluations under `c`. */
async function record(c: Candidate, inputs: Input[], paths = PATHS): Promise<{ lines: string[]; ids: Map<string, { path: string; input: Input }> }> {
  const lines: string[] = [];
  const ids = new Map<string, { path: string; input: Input }>();
  let n = 0;
  for (const input of inputs) {
    for (const path of paths) {
      const result = await c.evaluate(path.split('/'), input as unknown as Value);
      const id = `d${n++}`;
      ids.set(id, { path, input });
      const ev = buildEvent({ decision_id: id, path: 'data.' + path.replace('/', '.'), input: input as unknown as Value, result }, { labels: { id: 'test' }, revisions: { shop: 'r1' } });
      lines.push(encodeEvent(ev));
    }
  }
  return { lines, ids };
}

beforeAll(async () => {
  oldC = await loadCandidate({ modules: { 'shop.rego': OLD }, data: DATA });
  newC = await loadCandidate({ modules: { 'shop.rego': NEW }, data: DATA });
});

describe('classify', () => {
  it.each([
    [true, false, 'allow->deny'],
    [false, true, 'deny->allow'],
    [true, undefined, 'allow->deny'],
    [undefined, true, 'deny->allow'],
    [{ allow: true, r: 1 }, { allow: false, r: 1 }, 'allow->deny'],
    [{ allow: true }, { reason: 'x' }, 'allow->deny'],
    [{ allow: false, r: 1 }, { allow: false, r: 2 }, 'value'],
    [{ allow: false }, undefined, 'value'],
    // both deny, but the answer differs ({"result": false} vs {}): a value change
    [false, undefined, 'value'],
    [1, 2, 'value'],
    [1, undefined, 'value'],
    [undefined, 'x', 'value'],
    [{ a: 1 }, { b: 1 }, 'value'],
    [true, 5, 'value'],
    [{ b: 1, a: [1, 2] }, { a: [1, 2], b: 1 }, undefined],
    [undefined, undefined, undefined],
  ] as [unknown, unknown, ChangeKind | undefined][])('%j -> %j is %s', (b, a, kind) => {
    expect(classify(b as Value, a as Value)).toBe(kind);
  });
});

describe('diffJSON', () => {
  it('writes JSON-pointer operations', () => {
    expect(diffJSON({ a: 1, b: { 'x/y': [1, 2, 3] }, c: 3 }, { a: 2, b: { 'x/y': [1, 5] }, d: 4 })).toEqual([
      { op: 'replace', path: '/a', old: 1, new: 2 },
      { op: 'replace', path: '/b/x~1y/1', old: 2, new: 5 },
      { op: 'remove', path: '/b/x~1y/2', old: 3 },
      { op: 'remove', path: '/c', old: 3 },
      { op: 'add', path: '/d', new: 4 },
    ]);
    expect(diffJSON(true, undefined)).toEqual([{ op: 'remove', path: '', old: true }]);
    expect(diffJSON(undefined, 'x')).toEqual([{ op: 'add', path: '', new: 'x' }]);
    expect(diffJSON([1], { a: 1 })).toEqual([{ op: 'replace', path: '', old: [1], new: { a: 1 } }]);
    expect(diffJSON({ a: [1] }, { a: [1] })).toEqual([]);
  });
});

describe('parseNDJSON', () => {
  it('skips blank lines and marks malformed ones, from text and from a stream split anywhere', async () => {
    const text = '{"a":1}\n\n  \nnot json\n[1]\n{"b":12345678901234567890}\r\n{"c":3}';
    const fromText = parseNDJSON(text);
    expect(fromText).toHaveLength(5);
    const chunks = [text.slice(0, 3), text.slice(3, 17), text.slice(17, 40), text.slice(40)];
    const fromStream: unknown[] = [];
    for await (const x of parseNDJSON(Readable.from(chunks.map((c) => Buffer.from(c))))) fromStream.push(x);
    expect(fromStream).toEqual(fromText);
    const r = await replay(fromText, newC);
    expect(r.total).toBe(5);
    expect(r.skipped).toEqual({ malformed: 2, no_path: 3 });
  });
});

describe('replay', () => {
  it('property: events recorded from a policy replayed against the same policy change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(inputArb, { minLength: 1, maxLength: 15 }), async (inputs) => {
        for (const c of [oldC, newC]) {
          const { lines } = await record(c, inputs);
          const r = await replay(parseNDJSON(lines.join('\n')), c);
          expect(r.changed).toBe(0);
          expect(r.replayed).toBe(lines.length);
          expect(r.examples).toEqual([]);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('property: the changed decisions and their kinds are what a JS statement of both policies says', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(inputArb, { minLength: 1, maxLength: 15 }), async (inputs) => {
        const { lines, ids } = await record(oldC, inputs);
        const r = await replay(parseNDJSON(lines.join('\n')), newC, { examplesPerKind: 1000 });
        const expected = new Map<string, ChangeKind>();
        for (const [id, { path, input }] of ids) {
          const k = expectedKind(path, input);
          if (k) expected.set(id, k);
        }
        expect(new Map(r.examples.map((x) => [x.decision_id, x.kind]))).toEqual(expected);
        expect(r.changed).toBe(expected.size);
        for (const p of r.by_path) {
          const mine = [...ids].filter(([, v]) => v.path === p.path).map(([id]) => expected.get(id));
          expect(p.total).toBe(mine.length);
          expect(p.changed).toBe(mine.filter(Boolean).length);
          expect(p.allow_to_deny).toBe(mine.filter((k) => k === 'allow->deny').length);
          expect(p.deny_to_allow).toBe(mine.filter((k) => k === 'deny->allow').length);
          expect(p.value_changed).toBe(mine.filter((k) => k === 'value').length);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('property: with blank and garbage lines, total = replayed + skipped', async () => {
    const line = fc.oneof(
      { weight: 3, arbitrary: inputArb.map((i) => ({ kind: 'event' as const, i })) },
      { weight: 1, arbitrary: fc.constantFrom('', '   ', '\t').map((s) => ({ kind: 'blank' as const, s })) },
      { weight: 1, arbitrary: fc.string().filter((s) => !s.includes('\n')).map((s) => ({ kind: 'garbage' as const, s: '#' + s })) },
      { weight: 1, arbitrary: fc.constantFrom('{"query":"data.x","decision_id":"q"}', '{"path":"shop/allow","error":{"code":"e","message":"m"}}', '{"path":"shop/allow","input":{},"erased":["/input/user"]}') },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 40 }), async (items) => {
        const text: string[] = [];
        let events = 0;
        let garbage = 0;
        let other = 0;
        for (const it of items) {
          if (typeof it === 'string') {
            text.push(it);
            other++;
          } else if (it.kind === 'event') {
            text.push((await record(oldC, [it.i], ['shop/allow'])).lines[0]!);
            events++;
          } else if (it.kind === 'garbage') {
            text.push(it.s);
            garbage++;
          } else text.push(it.s);
        }
        const r = await replay(parseNDJSON(text.join('\n')), newC);
        const skipped = Object.values(r.skipped).reduce((a, b) => a + (b ?? 0), 0);
        expect(r.total).toBe(r.replayed + skipped);
        expect(r.total).toBe(events + garbage + other);
        expect(r.replayed).toBe(events);
        expect(r.skipped.malformed ?? 0).toBe(garbage);
      }),
      { numRuns: 50 },
    );
  });

  it('skips queries, errors and masked events', async () => {
    const events = [
      { decision_id: 'q', query: 'data.shop.allow', result: [] },
      { decision_id: 'e', path: 'shop/allow', error: { code: 'internal_error', message: 'x' } },
      { decision_id: 'm1', path: 'shop/allow', input: { amount: 1 }, result: false, erased: ['/input/user'] },
      { decision_id: 'm2', path: 'shop/allow', input: { amount: 1, user: 'x' }, result: false, masked: ['/input/user'] },
      { decision_id: 'ok', path: 'shop/allow', input: { amount: 80, user: 'alice', role: 'user' }, result: true },
      'a string',
    ];
    const r = await replay(events, newC);
    expect(r).toMatchObject({ total: 6, replayed: 1, changed: 1, skipped: { no_path: 1, error: 1, masked: 2, malformed: 1 } });
    expect(r.examples[0]).toMatchObject({ decision_id: 'ok', kind: 'allow->deny', before: true, after: false, diff: [{ op: 'replace', path: '', old: true, new: false }] });
  });

  it('counts decisions the candidate fails to evaluate apart', async () => {
    const broken = await loadCandidate({ modules: { 'p.rego': 'package shop\nallow := true if input.a\nallow := false if input.b\n' } });
    const r = await replay([{ decision_id: 'x', path: 'shop/allow', input: { a: true, b: true }, result: true }], broken);
    expect(r).toMatchObject({ total: 1, replayed: 0, changed: 0, skipped: { candidate_error: 1 } });
  });

  it('limits the events read and the examples kept, and reports progress', async () => {
    const inputs = Array.from({ length: 10 }, (_, k) => ({ amount: 80 + k, user: 'alice', role: 'user' }));
    const { lines } = await record(oldC, inputs, ['shop/allow']);
    const progress: [number, number | undefined][] = [];
    const r = await replay(parseNDJSON(lines.join('\n')), newC, { limit: 6, examplesPerKind: 2, onProgress: (d, t) => progress.push([d, t]) });
    expect(r.total).toBe(6);
    expect(r.changed).toBe(6);
    expect(r.examples.map((x) => x.decision_id)).toEqual(['d0', 'd1']);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6].map((d) => [d, 6]));
    // an async source: no total
    const seen: (number | undefined)[] = [];
    await replay(parseNDJSON(Readable.from([lines.join('\n')])), newC, { onProgress: (_, t) => seen.push(t) });
    expect(seen).toHaveLength(10);
    expect(seen.every((t) => t === undefined)).toBe(true);
  });

  it('names the rules involved: the changed ones with a baseline, the path package ones without', async () => {
    const lib = `package lib
import rego.v1
is_user(u) if u in data.users
`;
    const base = await loadCandidate({ modules: { 'shop.rego': OLD, 'lib.rego': lib }, data: DATA });
    const cand = await loadCandidate({ modules: { 'shop.rego': NEW.replace('input.user in data.users', 'data.lib.is_user(input.user)'), 'lib.rego': lib + '\n# reformatted\n' }, data: DATA });
    const { lines } = await record(
      base,
      [
        { amount: 80, user: 'alice', role: 'user' },
        { amount: 45, user: 'alice', role: 'user' },
      ],
      ['shop/allow', 'shop/tier', 'shop/decision'],
    );
    const key = (x: { path: string; input?: unknown }) => `${x.path}@${(x.input as Input).amount}`;
    const withBase = await replay(parseNDJSON(lines.join('\n')), cand, { baseline: base });
    const rules = Object.fromEntries(withBase.examples.map((x) => [key(x), x.rules]));
    expect(Object.keys(rules).sort()).toEqual(['shop/allow@80', 'shop/decision@45', 'shop/decision@80', 'shop/tier@45']);
    // lib.is_user was evaluated but did not change (only reformatted); shop.allow did
    expect(await cand.evaluatedRules(['shop', 'allow'], { amount: 5, user: 'alice', role: 'user' })).toEqual(['lib.is_user', 'shop.allow']);
    expect(rules['shop/allow@80']).toEqual(['shop.allow']);
    expect(rules['shop/tier@45']).toEqual(['shop.tier']);
    expect(rules['shop/decision@80']).toEqual(['shop.allow', 'shop.tier']);
    expect(await cand.evaluatedRules(['shop', 'decision'], { amount: 45, user: 'alice', role: 'user' })).toContain('lib.is_user');
    expect(rules['shop/decision@45']).toEqual(['shop.allow', 'shop.tier']);
    // the baseline may be given as its modules
    const withModules = await replay(parseNDJSON(lines.join('\n')), cand, { baseline: { 'shop.rego': OLD, 'lib.rego': lib } });
    expect(withModules.examples.map((x) => x.rules)).toEqual(withBase.examples.map((x) => x.rules));
    // without a baseline: every rule the decision evaluated in the path's package
    const noBase = await replay(parseNDJSON(lines.join('\n')), cand);
    const r2 = Object.fromEntries(noBase.examples.map((x) => [key(x), x.rules]));
    expect(r2['shop/allow@80']).toEqual(['shop.allow']);
    expect(r2['shop/tier@45']).toEqual(['shop.tier']);
    expect(r2['shop/decision@45']).toEqual(['shop.allow', 'shop.decision', 'shop.tier']);
    // data changed, rules did not: no rule is named
    const moreUsers = await loadCandidate({ modules: { 'shop.rego': OLD }, data: { users: [] } });
    const d = await replay(parseNDJSON(lines.join('\n')), moreUsers, { baseline: base });
    expect(d.examples.find((x) => x.path === 'shop/allow')).toMatchObject({ kind: 'allow->deny', rules: [] });
  });

  it('loads a bundle candidate (data under its roots) and replays its own events unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regolith-impact-'));
    writeFileSync(join(dir, 'shop.rego'), OLD);
    writeFileSync(join(dir, 'data.json'), JSON.stringify(DATA));
    const bytes = await writeBundle(await buildBundle([dir]));
    const c = await loadCandidate({ bundle: bytes });
    const inputs = [
      { amount: 5, user: 'alice', role: 'user' },
      { amount: 90, user: 'eve', role: 'admin' },
      { amount: 90, user: 'eve', role: 'user' },
    ];
    const { lines } = await record(c, inputs);
    expect(lines.some((l) => l.includes('"result":true'))).toBe(true);
    expect((await replay(parseNDJSON(lines.join('\n')), c)).changed).toBe(0);
    const r = await replay(parseNDJSON(lines.join('\n')), newC);
    expect(r.changed).toBeGreaterThan(0);
    await expect(loadCandidate({ bundle: Buffer.from('not a bundle') })).rejects.toThrow();
    await expect(loadCandidate({ modules: { 'x.rego': 'package x\nallow if {' } })).rejects.toThrow();
  });
});
