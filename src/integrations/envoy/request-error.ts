// A CheckRequest the plugin cannot turn into an input document (a bad URL escape, a body
// that does not parse as its content-type says): OPA answers it PERMISSION_DENIED with a
// 400 for Envoy to send, and the message prefixed "request_parse_error: ".

export class RequestParseError extends Error {}
