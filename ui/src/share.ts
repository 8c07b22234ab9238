// Playground state <-> a URL fragment: JSON, deflate-raw compressed, base64url encoded.
// Nothing is stored on the server; the link is the state.

export interface PlaygroundState {
  modules: Record<string, string>;
  input: string;
  data: string;
  query: string;
  unknowns: string;
  explain: 'off' | 'notes' | 'fails' | 'full';
  coverage: boolean;
  /** The Rego syntax of modules and query (absent: v1). */
  regoVersion?: 'v0' | 'v1';
  /** Built-ins from an OPA capabilities file (absent: all of Regolith's): its name and the names it lists. */
  capabilities?: { file: string; builtins: string[] };
  /** A note shown above the editors (e.g. the decision being replayed). */
  note?: string;
  /** A warning shown above the editors (e.g. the replay may not be faithful). */
  warning?: string;
}

function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s: string): Uint8Array {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Blob([bytes as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

export async function encodeState(state: PlaygroundState): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(state));
  return toBase64Url(await pipe(json, new CompressionStream('deflate-raw')));
}

export async function decodeState(code: string): Promise<PlaygroundState> {
  const json = await pipe(fromBase64Url(code), new DecompressionStream('deflate-raw'));
  return JSON.parse(new TextDecoder().decode(json)) as PlaygroundState;
}

/** The full link to the playground holding this state. */
export async function shareURL(state: PlaygroundState): Promise<string> {
  const base = location.href.split('#')[0];
  return `${base}#/playground?s=${await encodeState(state)}`;
}
