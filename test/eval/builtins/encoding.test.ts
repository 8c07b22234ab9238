import { describe, expect, it } from 'vitest';
import { call, callError, obj } from './fake-context.js';
import { RSet } from '../../../src/value/index.js';

const err = callError;

describe('base64', () => {
  it('encodes and decodes UTF-8 text', () => {
    expect(call('base64.encode', 'hello')).toBe('aGVsbG8=');
    expect(call('base64.encode', 'åäö')).toBe('w6XDpMO2');
    expect(call('base64.decode', 'aGVsbG8=')).toBe('hello');
    expect(call('base64.decode', 'aGVs\nbG8=')).toBe('hello');
    expect(call('base64.decode', '')).toBe('');
  });
  it('rejects malformed input with Go error text', () => {
    expect(err('base64.decode', 'aGVsbG8').message).toBe('illegal base64 data at input byte 4');
    expect(err('base64.decode', 'a$==').message).toBe('illegal base64 data at input byte 1');
    expect(err('base64.decode', 'aGVsbG8=x').message).toBe('illegal base64 data at input byte 8');
  });
  it('is_valid', () => {
    expect(call('base64.is_valid', 'aGVsbG8=')).toBe(true);
    expect(call('base64.is_valid', 'aGVsbG8')).toBe(false);
    expect(call('base64.is_valid', '')).toBe(true);
  });
  it('base64url variants', () => {
    expect(call('base64url.encode', '\u00ff\u00fe?')).toBe('w7_Dvj8=');
    expect(call('base64url.encode_no_pad', '\u00ff\u00fe?')).toBe('w7_Dvj8');
    expect(call('base64url.decode', 'w7_Dvj8')).toBe('\u00ff\u00fe?');
    expect(call('base64url.decode', 'w7_Dvj8=')).toBe('\u00ff\u00fe?');
    expect(call('base64url.decode', 'aGk')).toBe('hi');
    expect(err('base64url.decode', 'abcde').message).toBe('illegal base64url string: abcde');
  });
});

describe('hex', () => {
  it('encodes and decodes', () => {
    expect(call('hex.encode', 'lorem ipsum')).toBe('6c6f72656d20697073756d');
    expect(call('hex.decode', '6c6f72656d20697073756d')).toBe('lorem ipsum');
    expect(call('hex.decode', '6C6F')).toBe('lo');
  });
  it('reports Go errors', () => {
    expect(err('hex.decode', 'abc').message).toBe('encoding/hex: odd length hex string');
    expect(err('hex.decode', 'zz').message).toBe("encoding/hex: invalid byte: U+007A 'z'");
    expect(err('hex.decode', 'abz').message).toBe("encoding/hex: invalid byte: U+007A 'z'");
  });
});

describe('urlquery', () => {
  it('encode / decode', () => {
    expect(call('urlquery.encode', 'a=b+1')).toBe('a%3Db%2B1');
    expect(call('urlquery.encode', 'x y~é')).toBe('x+y~%C3%A9');
    expect(call('urlquery.decode', 'a%3Db%2B1')).toBe('a=b+1');
    expect(call('urlquery.decode', 'x+y')).toBe('x y');
    expect(err('urlquery.decode', 'a%zz').message).toBe('invalid URL escape "%zz"');
  });
  it('encode_object sorts keys and expands arrays and sets', () => {
    expect(call('urlquery.encode_object', obj({}))).toBe('');
    expect(call('urlquery.encode_object', obj({ c: 'd', a: 'b' }))).toBe('a=b&c=d');
    expect(call('urlquery.encode_object', obj({ a: ['b+1', 'c+2'] }))).toBe('a=b%2B1&a=c%2B2');
    expect(call('urlquery.encode_object', obj({ a: RSet.of('b+1') }))).toBe('a=b%2B1');
    expect(err('urlquery.encode_object', obj({ a: 1 })).message).toBe('encode_object: values must be string, array[string], or set[string]');
  });
  it('decode_object', () => {
    expect(call('urlquery.decode_object', 'a=value_a1&b=value_b&a=value_a2')).toEqual({ a: ['value_a1', 'value_a2'], b: ['value_b'] });
    expect(call('urlquery.decode_object', 'a=value_a1&b')).toEqual({ a: ['value_a1'], b: [''] });
    expect(call('urlquery.decode_object', '')).toEqual({});
    expect(err('urlquery.decode_object', 'a=1;b=2').message).toBe('invalid semicolon separator in query');
  });
});

describe('uri', () => {
  it('parse splits a URL', () => {
    expect(call('uri.parse', 'https://user:pw@example.com:8443/a%20b/c?x=1&y=2#frag')).toEqual({
      scheme: 'https',
      hostname: 'example.com',
      port: '8443',
      path: '/a b/c',
      raw_path: '/a b/c',
      raw_query: 'x=1&y=2',
      fragment: 'frag',
    });
    expect(call('uri.parse', '/a%2Fb')).toEqual({ path: '/a/b', raw_path: '/a%2Fb' });
    expect(call('uri.parse', 'mailto:user@example.com')).toEqual({ scheme: 'mailto' });
    expect(call('uri.parse', 'http://[::1]:80/')).toEqual({ scheme: 'http', hostname: '::1', port: '80', path: '/', raw_path: '/' });
  });
  it('parse errors follow net/url', () => {
    expect(err('uri.parse', 'https://www.openpolicyagent.org:3a9').message).toBe(
      'parse "https://www.openpolicyagent.org:3a9": invalid port ":3a9" after host',
    );
    expect(err('uri.parse', ':foo').message).toBe('parse ":foo": missing protocol scheme');
  });
  it('is_valid', () => {
    expect(call('uri.is_valid', 'https://example.com')).toBe(true);
    expect(call('uri.is_valid', 'relative/path')).toBe(true);
    expect(call('uri.is_valid', '')).toBe(false);
    expect(call('uri.is_valid', 'http://a b.com/')).toBe(false);
    expect(call('uri.is_valid', 1)).toBe(false);
  });
});
