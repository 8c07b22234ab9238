// A logged decision's whole input when the decision holds it only as text: the server read
// the body only where the policy looks (see value/json-input-text.ts for the text the log
// copies instead of the value).

import { parseJSON, type Value } from '../../value/index.js';

/**
 * A decision's whole input: its value, or, when the server read the body only where the policy
 * looks (`input_partial`), the value of the body's text. Throws when a partial input comes
 * without that text: an event must not show part of an input as the whole.
 */
export function loggedInput(d: { input?: Value; input_text?: Buffer; input_partial?: boolean }): Value | undefined {
  if (!d.input_partial) return d.input;
  if (d.input_text === undefined) throw new Error('a decision read from part of its input came without the input text');
  return parseJSON(d.input_text.toString('utf8'));
}
