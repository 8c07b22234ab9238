// Signing in to a locked server (--authentication=token): the token is kept for this tab
// only (sessionStorage: a reload keeps it, another tab or a closed browser asks again) and
// sent as "Authorization: Bearer" with every request, the live stream included (it is
// read with fetch, never EventSource, so the token never goes into a URL that gets logged).
// A 401 from the server — no token, or one its authorization policy refuses — makes the
// console ask for one (main.ts listens through whenRefused).

const KEY = 'regolith.token';

export function token(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function keepToken(t: string): void {
  sessionStorage.setItem(KEY, t);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}

/** The header a request carries: the tab's token, or none. */
export function authorization(t = token()): Record<string, string> {
  return t ? { authorization: `Bearer ${t}` } : {};
}

type Refused = (message: string, hadToken: boolean) => void;
let onRefused: Refused | undefined;

export function whenRefused(fn: Refused): void {
  onRefused = fn;
}

/** The server answered 401 to a request: forget the token (it no longer works) and ask for one. */
export function refused(message: string): void {
  const had = token() !== undefined;
  forgetToken();
  onRefused?.(message, had);
}
