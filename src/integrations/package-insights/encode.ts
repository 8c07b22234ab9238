// Path values of the insights API are percent-encoded in full: `/` becomes %2F, and so do
// the characters encodeURIComponent leaves alone (a purl's `@` and `:` included).

export function encodeFull(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}
