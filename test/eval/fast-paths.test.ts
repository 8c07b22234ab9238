// Built-in calls the planner answers in place: count of an array (src/eval/closures/calls.ts)
// and time.now_ns's number made once per instant (src/eval/builtins/time.ts).
import { describe, expect, it } from 'vitest';
import { Regolith } from '../../src/index.js';

const POLICY = `package f

n := count(input.x)
mocked := x if {
	x := count(input.x) with count as one
}
one(_) := 1
now := time.now_ns()
twice if time.now_ns() == time.now_ns()
`;

describe('count in place', () => {
  const r = new Regolith().addModule('f.rego', POLICY);
  const at = (q: string, input: unknown) => r.prepare(`data.f.${q}`).evaluate({ input })[0]?.expressions[0]?.value;
  it('counts arrays, and leaves other operands to the built-in', () => {
    expect(at('n', { x: [1, 2, 3] })).toBe(3);
    expect(at('n', { x: [] })).toBe(0);
    expect(at('n', { x: 'héllo' })).toBe(5);
    expect(at('n', { x: { a: 1, b: 2 } })).toBe(2);
    expect(at('n', { x: 7 })).toBeUndefined();
    expect(at('n', {})).toBeUndefined();
  });
  it('honours a mock', () => {
    expect(at('mocked', { x: [1, 2, 3] })).toBe(1);
  });
});

describe('time.now_ns', () => {
  const r = new Regolith().addModule('f.rego', POLICY);
  const at = (q: string, now?: bigint) => r.prepare(`data.f.${q}`).evaluateRaw({ now })[0]?.expressions[0]?.value;
  it('follows the instant of each query', () => {
    expect(String(at('now', 1700000000123000000n))).toBe('1700000000123000000');
    expect(String(at('now', 1700000000123000000n))).toBe('1700000000123000000');
    expect(String(at('now', 1700000000124000000n))).toBe('1700000000124000000');
    expect(at('now', 5n)).toBe(5);
    expect(at('twice')).toBe(true);
  });
});
