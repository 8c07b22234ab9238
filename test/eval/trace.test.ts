// Trace events as OPA emits them, explain modes (pretty lines, JSON events), coverage
// from events, and time limits on every kind of iteration.
import { describe, expect, it } from 'vitest';
import { BufferTracer, CoverageTracer, coverageReport, Regolith, parseModule, type TraceEvent } from '../../src/index.js';

const POLICY = `package x

allow if {
	input.user == "alice"
}

deny contains msg if {
	not allow
	msg := "no"
	trace(msg)
}
`;

function run(query: string, input: unknown, mode: 'full' | 'notes' | 'fails' = 'full'): BufferTracer {
  const r = new Regolith().addModule('p.rego', POLICY);
  const t = new BufferTracer(mode);
  r.prepare(query).evaluate({ input, tracer: t });
  return t;
}

const brief = (e: TraceEvent) => `${e.op} ${e.node?.type ?? '-'} q${e.queryId}/p${e.parentId}${e.location ? ` ${e.location.file}:${e.location.row}` : ''}`;

describe('trace events', () => {
  it('Enter/Eval/Exit/Redo/Fail/Note with nodes, locations and the query hierarchy', () => {
    const t = run('data.x.deny', { user: 'bob' });
    expect(t.all.map(brief)).toEqual([
      'Enter body q0/p0 :1',
      'Eval expr q0/p0 :1',
      'Enter rule q1/p0 p.rego:7',
      'Eval expr q1/p0 p.rego:8',
      'Enter body q2/p1 p.rego:8',
      'Eval expr q2/p1 p.rego:8',
      'Enter rule q3/p2 p.rego:3',
      'Eval expr q3/p2 p.rego:4',
      'Fail expr q3/p2 p.rego:4',
      'Fail expr q2/p1 p.rego:8',
      'Eval expr q1/p0 p.rego:9',
      'Eval expr q1/p0 p.rego:10',
      'Note - q1/p0 p.rego:10',
      'Exit rule q1/p0 p.rego:7',
      'Redo rule q1/p0 p.rego:7',
      'Redo expr q1/p0 p.rego:10',
      'Redo expr q1/p0 p.rego:9',
      'Redo expr q1/p0 p.rego:8',
      'Exit body q0/p0 :1',
      'Redo body q0/p0 :1',
      'Redo expr q0/p0 :1',
    ]);
    const note = t.all.find((e) => e.op === 'Note')!;
    expect(note.message).toBe('no');
    // locals: the variables the expression mentions, as bound when the event fires
    const redo = t.all.find((e) => e.op === 'Redo' && e.node?.type === 'expr' && e.location?.row === 9)!;
    expect(redo.locals).toEqual([['msg', 'no']]);
  });

  it('pretty lines: locations, Enter at the query depth, other events one deeper', () => {
    const lines = run('data.x.deny', { user: 'bob' }).lines();
    expect(lines.slice(0, 6)).toEqual([
      'query:1       Enter data.x.deny',
      'query:1       | Eval data.x.deny',
      'p.rego:7      | Enter data.x.deny',
      'p.rego:8      | | Eval not allow',
      'p.rego:8      | | Enter allow',
      'p.rego:8      | | | Eval allow',
    ]);
    expect(lines).toContain('p.rego:4      | | | | Fail input.user == "alice"');
    expect(lines).toContain('p.rego:10     | | Note "no"');
  });

  it('notes keeps each Note with the Enter events that led to it; fails the same for Fail', () => {
    expect(run('data.x.deny', { user: 'bob' }, 'notes').lines()).toEqual([
      'query:1       Enter data.x.deny',
      'p.rego:7      | Enter data.x.deny',
      'p.rego:10     | | Note "no"',
    ]);
    const fails = run('data.x.deny', { user: 'bob' }, 'fails').lines();
    // after each Fail the recorded path starts afresh (OPA's lineage filter)
    expect(fails).toEqual([
      'query:1      Enter data.x.deny',
      'p.rego:7     | Enter data.x.deny',
      'p.rego:8     | | Enter allow',
      'p.rego:3     | | | Enter data.x.allow',
      'p.rego:4     | | | | Fail input.user == "alice"',
      'p.rego:8     | | | Fail allow',
    ]);
  });

  it('JSON events have OPA TraceEventV1 fields', () => {
    const ev = run('data.x.deny', { user: 'bob' }).json();
    expect(Object.keys(ev[0]!)).toEqual(['op', 'query_id', 'parent_id', 'type', 'node', 'locals', 'location']);
    expect(ev[0]).toMatchObject({ op: 'enter', query_id: 0, parent_id: 0, type: 'body', locals: [] });
    const rule = ev.find((e) => e['type'] === 'rule')!;
    expect(rule).toMatchObject({ op: 'enter', query_id: 1, parent_id: 0, location: { file: 'p.rego', row: 7, col: 1 } });
    expect((rule['node'] as { head: { name: string } }).head.name).toBe('deny');
    const note = ev.find((e) => e['op'] === 'note')!;
    expect(note).toMatchObject({ message: 'no', type: '', node: null });
    const withLocal = ev.find((e) => (e['locals'] as unknown[]).length > 0)!;
    expect(withLocal['locals']).toEqual([{ key: { type: 'var', value: 'msg' }, value: { type: 'string', value: 'no' } }]);
  });

  it('comprehensions and every bodies are child queries', () => {
    const r = new Regolith().addModule('c.rego', 'package c\n\nxs := [y | some y in [1, 2]; y > 1]\n\nok if every z in [1] { z == 1 }\n');
    const t = new BufferTracer('full');
    r.prepare('data.c.xs').evaluate({ tracer: t });
    expect(t.lines().some((l) => /\| \| Enter some y in \[1, 2\]; y > 1/.test(l))).toBe(true);
    expect(t.lines().filter((l) => l.includes('Fail y > 1'))).toHaveLength(1);
    const t2 = new BufferTracer('full');
    expect(r.prepare('data.c.ok').evaluate({ tracer: t2 })[0]!.expressions[0]!.value).toBe(true);
    expect(t2.lines().some((l) => l.includes('Eval z == 1'))).toBe(true);
  });

  it('untraced evaluation after a traced one gives the same results', () => {
    const r = new Regolith().addModule('p.rego', POLICY);
    const q = r.prepare('x := data.x.deny');
    const traced = q.evaluate({ input: { user: 'bob' }, tracer: new BufferTracer() });
    expect(q.evaluate({ input: { user: 'bob' } })).toEqual(traced);
  });
});

describe('coverage from trace events', () => {
  it('covers evaluated expressions and heads of rules that produced a value', () => {
    const src = 'package c\n\nallow if {\n\tinput.a == 1\n}\n\nallow if {\n\tinput.b == 2\n\tinput.c\n}\n\nnever := 1 if {\n\tfalse\n}\n';
    const r = new Regolith().addModule('c.rego', src);
    const cov = new CoverageTracer();
    r.prepare('data.c.allow').evaluate({ input: { a: 1, b: 2, c: false }, tracer: cov });
    const report = coverageReport(cov.hits, new Map([['c.rego', parseModule(src, { filename: 'c.rego' })]]));
    expect(report.files['c.rego']).toEqual({
      covered: [
        { start: { row: 3 }, end: { row: 4 } },
        { start: { row: 8 }, end: { row: 9 } },
      ],
      not_covered: [
        { start: { row: 7 }, end: { row: 7 } },
        { start: { row: 12 }, end: { row: 13 } },
      ],
      covered_lines: 4,
      not_covered_lines: 3,
      coverage: 57.15,
    });
    expect(report).toMatchObject({ covered_lines: 4, not_covered_lines: 3, coverage: 57.15 });
  });
});

describe('time limits on iteration', () => {
  // 10^10 iterations each: only the deadline can end them
  const R = 'numbers.range(1, 100000)';
  const loops: [string, string][] = [
    ['some x in', `p if { some x in ${R}; some y in ${R}; x + y < 0 }`],
    ['some k, v in', `p if { some k, v in ${R}; some y in ${R}; k + v + y < 0 }`],
    ['every', `p if { some x in ${R}; every y in ${R} { x + y > 0 }; x < 0 }`],
    ['comprehension', `p if { c := [x | some x in ${R}; some y in ${R}; x + y < 0]; c }`],
    ['xs[_]', `p if { ${R}[_] + ${R}[_] < 0 }`],
    ['partial set', `s contains x + y if { some x in ${R}; some y in ${R}; x < 0 }\n\np if count(s) > 0`],
  ];
  for (const [name, rule] of loops) {
    it(`${name} stops at the deadline with eval_cancel_error`, () => {
      const r = new Regolith().addModule('t.rego', 'package t\n\n' + rule);
      const t0 = Date.now();
      let err: unknown;
      try {
        r.prepare('data.t.p').evaluate({ timeoutMs: 100 });
      } catch (e) {
        err = e;
      }
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(err).toMatchObject({ code: 'eval_cancel_error', rawMessage: 'caller cancelled query execution' });
    });
  }
  it('an aborted signal stops a some-in loop', () => {
    const r = new Regolith().addModule('t.rego', 'package t\n\np if { some x in numbers.range(1, 100000); x < 0 }');
    const ac = new AbortController();
    ac.abort();
    expect(() => r.prepare('data.t.p').evaluate({ signal: ac.signal })).toThrow(expect.objectContaining({ code: 'eval_cancel_error', rawMessage: 'caller cancelled query execution' }));
  });
});
