// The sign-in form of a locked server: the token is tried against the API before it is
// kept, so a wrong one is refused here, in words, and never stored.

import { tryToken } from '../api.js';
import { keepToken } from '../auth.js';
import { clear, h } from '../dom.js';

/** Renders the form into `root`; `message` says why it is asked (a token refused); `done` runs once a token works. */
export function signInForm(root: HTMLElement, message: string | undefined, done: () => void): void {
  const input = h('input.token', { type: 'password', autocomplete: 'current-password', placeholder: 'bearer token', 'aria-label': 'token', required: true });
  const error = h('p.signin-error.bad', { hidden: !message }, message ?? '');
  const submit = h('button.primary', { type: 'submit' }, 'Sign in');
  const form = h('form.signin.panel', {},
    h('h2', {}, 'Sign in'),
    h('p.muted', {}, 'This server asks for a token (--authentication=token). It is kept for this tab only and sent with every request of the console.'),
    h('label', {}, 'Token ', input),
    submit,
    error);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const t = input.value.trim();
    if (!t) return;
    submit.disabled = true;
    try {
      const refusal = await tryToken(t);
      if (refusal) {
        error.textContent = refusal.status === 401 ? `The server refused this token: ${refusal.message}` : `Could not sign in: ${refusal.message}`;
        error.hidden = false;
        return;
      }
      keepToken(t);
      done();
    } catch (err) {
      error.textContent = `Could not reach the server: ${(err as Error).message}`;
      error.hidden = false;
    } finally {
      submit.disabled = false;
    }
  });
  clear(root, h('div.page.signin-page', {}, form));
  input.focus();
}
