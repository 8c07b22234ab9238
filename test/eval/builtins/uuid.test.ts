import { describe, expect, test } from 'vitest';
import { callBuiltin, fakeContext } from './fake-context.js';
import { call, expectError, n, text } from './builtin-calls.js';

describe('uuid.rfc4122', () => {
  test('a version-4 UUID, stable per argument within a query', () => {
    const ctx = fakeContext();
    const a = callBuiltin('uuid.rfc4122', ['k'], ctx) as string;
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(callBuiltin('uuid.rfc4122', ['k'], ctx)).toBe(a);
    expect(callBuiltin('uuid.rfc4122', ['other'], ctx)).not.toBe(a);
    expect(callBuiltin('uuid.rfc4122', ['k'], fakeContext())).not.toBe(a);
  });
});

describe('uuid.parse', () => {
  test('version 4 in several spellings', () => {
    const want = { version: 4, variant: 'RFC4122' };
    expect(call('uuid.parse', '00000000-0000-4000-8000-000000000000')).toEqual(want);
    expect(call('uuid.parse', '{00000000-0000-4000-8000-000000000000}')).toEqual(want);
    expect(call('uuid.parse', 'URN:uuid:00000000-0000-4000-8000-000000000000')).toEqual(want);
    expect(call('uuid.parse', '6bea8ef2d3d33cd184e09bab06a52ece')).toEqual({ version: 3, variant: 'RFC4122' });
  });
  test('version 2 fields', () => {
    expect(call('uuid.parse', 'urn:uuid:000003e8-48b9-21ee-b200-325096b39f47')).toEqual({
      clocksequence: 12800,
      domain: 'Person',
      id: 1000,
      macvariables: 'local:unicast',
      nodeid: '32-50-96-b3-9f-47',
      time: n('1693566990121469600'),
      variant: 'RFC4122',
      version: 2,
    });
    expect(text('uuid.parse', '000003e8-48b9-21ee-b200-325096b39f47')).toContain('"time":1693566990121469600');
  });
  test('invalid input is undefined; non-strings are type errors', () => {
    expect(call('uuid.parse', 'not-a-uuid')).toBeUndefined();
    expect(call('uuid.parse', '00000000-0000-4000-8000-00000000000g')).toBeUndefined();
    expectError(() => call('uuid.parse', 123), 'eval_type_error', 'operand 1 must be string but got number');
  });
});
