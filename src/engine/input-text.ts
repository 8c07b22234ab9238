// An input given as JSON text (a request body, a file) rather than a value: read with the
// one exact JSON reader, so numbers a double cannot hold keep their digits (JSON.parse would
// round 12345678901234567890), and a bad text is an error that says so, as OPA's server
// answers a malformed input document.

import { JSONParseError, parseJSON, type Value } from '../value/index.js';
import { readNeeded, type Needs } from '../value/json-sparse.js';
import { EngineError } from './errors.js';

export interface InputSource {
  input?: unknown;
  /** The input as JSON text; blank text is no input (as an empty request body). */
  inputText?: string;
}

/**
 * The input of an evaluation: `input` as given, or `inputText` read; not both. With
 * `needs` (what the policy can read of its input, eval/input-needs.ts) only those parts
 * are built from the text; all of it is still checked.
 */
export function inputOf(o: InputSource, needs?: Needs): Value | undefined {
  if (o.inputText === undefined) return o.input as Value | undefined;
  if (o.input !== undefined) throw new EngineError('bad_request', 'input and inputText are exclusive: give the input one way');
  if (o.inputText.trim() === '') return undefined;
  try {
    return needs ? readNeeded(o.inputText, needs) : parseJSON(o.inputText);
  } catch (e) {
    if (e instanceof JSONParseError) throw new EngineError('bad_request', `malformed input document: ${e.message}`, [{ code: 'invalid_parameter', message: `malformed input document: ${e.message}` }]);
    throw e;
  }
}
