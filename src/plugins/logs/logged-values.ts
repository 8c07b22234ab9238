// A logged decision's whole input and result when the decision holds them only as text: the
// server read the body only where the policy looks (see value/json-input-text.ts for the
// text the log copies instead of the value), or the decision crossed from a worker, whose
// result comes as the JSON text the response was written with and is parsed only when a
// drop or mask policy needs the event as a value.

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

/** A decision's result: its value, or, when it holds only the text (`result_in_json`), the value of that text. */
export function loggedResult(d: { result?: Value; result_json?: string; result_in_json?: boolean }): Value | undefined {
  if (!d.result_in_json) return d.result;
  if (d.result_json === undefined) throw new Error('a decision whose result is its text came without the text');
  return parseJSON(d.result_json);
}
