// The console: a hash router over four pages.

import { clear, h, type Page } from './dom.js';
import { playgroundPage } from './pages/playground/page.js';
import { decisionsPage } from './pages/decisions.js';
import { impactPage } from './pages/impact.js';
import { statusPage } from './pages/status.js';

const ROUTES: Record<string, { title: string; page: Page }> = {
  playground: { title: 'Playground', page: playgroundPage },
  decisions: { title: 'Live decisions', page: decisionsPage },
  impact: { title: 'Impact analysis', page: impactPage },
  status: { title: 'Status', page: statusPage },
};

const main = document.getElementById('main') ?? document.body.appendChild(h('main#main'));
const nav = document.getElementById('nav');
let cleanup: (() => void) | void;
let generation = 0;

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
  document.title = `${r.title} · Regolith`;
  for (const a of nav?.querySelectorAll('a') ?? []) a.classList.toggle('active', a.getAttribute('href') === `#/${name}`);
  clear(main);
  const c = await r.page(main, new URLSearchParams(query));
  // A newer route may have mounted while this page was loading.
  if (gen !== generation) c?.();
  else cleanup = c;
  main.dataset['page'] = name;
  main.dataset['ready'] = String(gen);
}

if (nav) clear(nav, ...Object.entries(ROUTES).map(([k, r]) => h('a', { href: `#/${k}` }, r.title)));
window.addEventListener('hashchange', () => void route());
void route();
