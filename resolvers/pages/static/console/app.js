// The console's shell: the scope and key form, hash routing (every view has a URL), and the
// role of the key, so actions it may not take are not offered (the server enforces them anyway).

import {session} from './api.js';
import {fill, h} from './dom.js';
import {whoAmI} from './role.js';
import * as entityView from './views/entity.js';
import * as factView from './views/fact.js';
import * as reviewView from './views/review.js';
import * as searchView from './views/search.js';
import * as timelineView from './views/timeline.js';
import * as writeView from './views/write.js';

const VIEWS = {
  search: searchView,
  timeline: timelineView,
  fact: factView,
  entity: entityView,
  review: reviewView,
  write: writeView,
};

const RANK = {none: 0, reader: 1, writer: 2, admin: 3};

/** What every view is handed: the scope, the role (null: unknown, everything offered). */
export const ctx = {
  scope: session.scope,
  role: null,
  may(role) { return this.role === null || RANK[this.role] >= RANK[role]; },
  navigate(hash) { if (location.hash === hash) route(); else location.hash = hash; },
};

let generation = 0;
let cleanup = null;

/** "#/fact/abc?x=1" -> {name: 'fact', arg: 'abc', params: URLSearchParams}. */
export function parseHash(hash) {
  const raw = (hash || '').replace(/^#\/?/, '');
  const [path, query] = raw.split('?', 2);
  const [name, ...rest] = path.split('/');
  return {
    name: name || 'search',
    arg: rest.length ? decodeURIComponent(rest.join('/')) : '',
    params: new URLSearchParams(query || ''),
  };
}

async function route() {
  generation += 1;
  const mine = generation;
  if (cleanup) { try { cleanup(); } catch { /* a view's teardown must not block the next */ } }
  cleanup = null;
  const {name, arg, params} = parseHash(location.hash);
  const main = document.getElementById('view');
  for (const link of document.querySelectorAll('nav.tabs a')) {
    if (link.dataset.view === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const view = VIEWS[name];
  if (!view) {
    fill(main, h('h1', {}, 'Not found'),
      h('p', {class: 'error shown', role: 'alert'}, `There is no view called "${name}".`),
      h('p', {}, h('a', {href: '#/search'}, 'Go to search')));
    return;
  }
  main.replaceChildren();
  document.body.dataset.view = name;
  document.body.dataset.route = location.hash;  // a script that changed the address waits for it
  const stale = () => mine !== generation;
  const result = await view.render(main, {arg, params, stale}, ctx);
  if (!stale() && typeof result === 'function') cleanup = result;
  else if (typeof result === 'function') result();
}

function showRole(note, banner) {
  const who = document.getElementById('who');
  who.textContent = note || '';
  const auth = document.getElementById('auth-note');
  auth.textContent = banner || '';
  auth.hidden = !banner;
  for (const link of document.querySelectorAll('nav.tabs a[data-needs]')) {
    link.hidden = !ctx.may(link.dataset.needs);
  }
}

async function refreshRole() {
  const {role, note, banner} = await whoAmI(ctx.scope, session.key);
  ctx.role = role;
  showRole(note, banner);
}

/** Count of sessions applied (the first load is one): a test or script that submits the
 * session form waits for it to grow before acting, or the view it acts on is rendered again
 * under it, empty, once the new role is known. */
function sessionApplied() {
  document.body.dataset.sessions = String(Number(document.body.dataset.sessions || 0) + 1);
}

function setUpSession() {
  const form = document.getElementById('session');
  const scope = document.getElementById('scope');
  const key = document.getElementById('key');
  scope.value = session.scope;
  key.value = session.key;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    session.scope = scope.value.trim();
    session.key = key.value.trim();
    ctx.scope = session.scope;
    await refreshRole();
    await route();
    sessionApplied();
  });
  document.getElementById('forget-key').addEventListener('click', async () => {
    session.key = '';
    key.value = '';
    await refreshRole();
    await route();
    sessionApplied();
  });
}

window.addEventListener('hashchange', route);
window.addEventListener('DOMContentLoaded', async () => {
  setUpSession();
  await refreshRole();
  await route();
  sessionApplied();
  document.body.dataset.ready = 'true';
});
