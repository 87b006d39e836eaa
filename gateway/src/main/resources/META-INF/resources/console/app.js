// The console's shell: sign-in, the hash router (#/datasets, #/datasets/NAME/dir/, #/workers), the header.

import { token, whenRefused } from './api.js';
import { clearError, showError } from './banner.js';
import { dirFrom, nameFrom } from './links.js';
import { datasetPage } from './pages/dataset.js';
import { datasetsPage } from './pages/datasets.js';
import { signInForm } from './pages/signin.js';
import { workersPage } from './pages/workers.js';

const view = document.getElementById('view');
const nav = document.getElementById('nav');

// The page shown: its route key, an AbortController that stops its polls and streams, and an optional update for
// moving within the same key (another directory of the same dataset).
let page = null;

function resolve(hash) {
  const [section, name, ...rest] = hash.replace(/^#\/?/, '').split('/');
  if (section === 'workers') return { key: 'workers', section, render: workersPage };
  if (section !== 'datasets') return null;
  if (!name) return { key: 'datasets', section, render: datasetsPage };
  return { key: `dataset/${name}`, section, render: datasetPage, params: { name: nameFrom(name), path: dirFrom(rest) } };
}

function leave() {
  page?.controller.abort();
  page = null;
}

function show() {
  if (!token.get()) return signIn();
  const route = resolve(location.hash);
  if (!route) return location.replace('#/datasets');
  clearError();
  nav.hidden = false;
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.section === route.section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (page?.key === route.key && page.update) return page.update(route.params);
  leave();
  const controller = new AbortController();
  view.replaceChildren();
  const update = route.render(view, route.params ?? {}, controller.signal);
  page = { key: route.key, controller, update };
}

function signIn(message) {
  leave();
  nav.hidden = true;
  // Several calls may be refused at once: the form shows once, and keeps what is being typed.
  if (!document.getElementById('token')) {
    const form = signInForm(value => {
      token.set(value);
      show();
    });
    view.replaceChildren(form);
    form.elements.token.focus();
  }
  if (message) showError(new Error(message));
  else clearError();
}

whenRefused(() => signIn('the token was refused'));
document.getElementById('sign-out').addEventListener('click', () => {
  token.clear();
  signIn();
});
window.addEventListener('hashchange', show);
show();
