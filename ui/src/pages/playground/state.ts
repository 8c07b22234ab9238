// Where the playground's state comes from: a shared link (?s=...), else what this browser
// saved last, else the example. Impact analysis offers the saved modules as a candidate.

import { decodeState, type PlaygroundState } from '../../share.js';

export const STORAGE_KEY = 'regolith.playground';

const EXAMPLE: PlaygroundState = {
  modules: {
    'policy.rego': `package authz

default allow := false

# Admins may do anything.
allow if input.user.role == "admin"

# Owners may read their documents.
allow if {
\tinput.method == "GET"
\tdata.owners[input.resource] == input.user.name
}
`,
  },
  input: JSON.stringify({ user: { name: 'alice', role: 'dev' }, method: 'GET', resource: 'doc1' }, null, 2),
  data: JSON.stringify({ owners: { doc1: 'alice' } }, null, 2),
  query: 'data.authz.allow',
  unknowns: '',
  explain: 'off',
  coverage: false,
};

/** The playground's last state (also what impact analysis offers as "edited modules"). */
export function savedState(): PlaygroundState | undefined {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as PlaygroundState) : undefined;
  } catch {
    return undefined;
  }
}

export function saveState(state: PlaygroundState): void {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(state));
}

/** The state to open with, and why a shared link could not be read (shown as a banner). */
export async function openingState(params: URLSearchParams): Promise<{ state: PlaygroundState; loadError: string }> {
  const code = params.get('s');
  if (!code) return { state: savedState() ?? EXAMPLE, loadError: '' };
  try {
    return { state: await decodeState(code), loadError: '' };
  } catch (e) {
    return { state: EXAMPLE, loadError: `could not read the shared state: ${(e as Error).message}` };
  }
}
