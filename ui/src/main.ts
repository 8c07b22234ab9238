// The console: a hash router over four pages, behind a sign-in when the server is locked.

import { api } from './api.js';
import { forgetToken, token, whenRefused } from './auth.js';
import { clear, h, type Page } from './dom.js';
import { playgroundPage } from './pages/playground/page.js';
import { decisionsPage } from './pages/decisions.js';
import { impactPage } from './pages/impact.js';
import { statusPage } from './pages/status.js';
import { signInForm } from './pages/signin.js';

const ROUTES: Record<string, { title: string; page: Page }> = {
  playground: { title: 'Playground', page: playgroundPage },
  decisions: { title: 'Live decisions', page: decisionsPage },
  impact: { title: 'Impact analysis', page: impactPage },
  status: { title: 'Status', page: statusPage },
};

const main = document.getElementById('main') ?? document.body.appendChild(h('main#main'));
const nav = document.getElementById('nav');
const account = document.querySelector('header.top')?.appendChild(h('span.account')) ?? h('span');
let cleanup: (() => void) | void;
let generation = 0;
/** Set when the server refused this tab: the sign-in form shows instead of any page, with this message. */
let signIn: { message?: string } | undefined;

function showAccount(): void {
  if (!token()) return clear(account);
  const out = h('button.sign-out', { type: 'button', title: 'forget the token of this tab' }, 'Sign out');
  out.addEventListener('click', () => {
    forgetToken();
    signIn = {};
    void route();
  });
  clear(account, out);
}

async function route(): Promise<void> {
  const hash = location.hash.replace(/^#\/?/, '');
  const [name = '', query = ''] = hash.split('?');
  const r = ROUTES[name];
  if (!r) {
    location.replace('#/playground');
    return;
  }
  const gen = ++generation;
  try {
    cleanup?.();
  } catch (e) {
    console.warn('page cleanup failed', e);
  }
  cleanup = undefined;
  showAccount();
  // each route renders into a view of its own: a page still loading when the route changes
  // (or the server refuses the tab) writes into a detached element, never over its successor
  const view = h('div.view');
  clear(main, view);
  if (signIn) {
    document.title = 'Sign in · Regolith';
    signInForm(view, signIn.message, () => {
      signIn = undefined;
      void route();
    });
    main.dataset['page'] = 'signin';
    main.dataset['ready'] = String(gen);
    return;
  }
  document.title = `${r.title} · Regolith`;
  for (const a of nav?.querySelectorAll('a') ?? []) a.classList.toggle('active', a.getAttribute('href') === `#/${name}`);
  const c = await r.page(view, new URLSearchParams(query));
  // A newer route may have mounted while this page was loading.
  if (gen !== generation) return void c?.();
  cleanup = c;
  main.dataset['page'] = name;
  main.dataset['ready'] = String(gen);
}

whenRefused((message, hadToken) => {
  signIn = { message: hadToken ? `The server refused the token this tab held: ${message}` : undefined };
  void route();
});

if (nav) clear(nav, ...Object.entries(ROUTES).map(([k, r]) => h('a', { href: `#/${k}` }, r.title)));
window.addEventListener('hashchange', () => void route());
// a locked server refuses the session at once (whenRefused above): ask for the token before any page
void api
  .session()
  .catch(() => undefined)
  .then(() => {
    if (!signIn) void route();
  });
