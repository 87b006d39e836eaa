// The file browser: one directory of a dataset, subdirectories first, then files with how much of each is cached.

import { call } from '../api.js';
import { act } from '../banner.js';
import { h, thead } from '../dom.js';
import { ago, bytes } from '../format.js';
import { datasetLink } from '../links.js';
import { keyedRows } from '../rows.js';

const PAGE_SIZE = '200';

/** [text, kind] of a file's cached bytes against its size. */
function cacheState(size, cached) {
  if (cached >= size) return ['cached', 'full'];
  if (cached <= 0) return ['not cached', 'none'];
  // Whole percents, yet a file partly cached never reads "0%" or "100%".
  return [`${Math.min(99, Math.max(1, Math.floor((100 * cached) / size)))}%`, 'partial'];
}

function breadcrumbs(name, dir) {
  const parts = dir.split('/').filter(Boolean);
  return [
    h('a', { href: datasetLink(name) }, name),
    ...parts.flatMap((part, i) => [' / ', h('a', { href: datasetLink(name, parts.slice(0, i + 1).join('/')) }, part)]),
    ' /',
  ];
}

const emptyListing = () => ({ dirs: [], files: [], cached: new Map(), cursor: null, pages: 0 });

/**
 * @param actions {preload(path), free(path)}, which confirm and act; "" is the whole dataset
 * @returns {el, open(dir), reload()}
 */
export function fileBrowser(name, { preload, free }, signal) {
  let dir = '';
  let listing = emptyListing();
  let generation = 0; // answers for a directory since left, or a listing since replaced, are dropped

  const actions = path => h('td', { className: 'actions' },
    h('button', { type: 'button', onclick: () => preload(path) }, 'Preload'),
    h('button', { type: 'button', onclick: () => free(path) }, 'Free cache'));

  function entryRow(entry) {
    const label = entry.path.slice(dir.length);
    if (entry.dir) {
      const link = h('a', { href: datasetLink(name, entry.path) }, label);
      return { tr: h('tr', { className: 'dir' }, h('td', {}, link), h('td'), h('td'), h('td'), actions(entry.path)), update() {} };
    }
    const size = h('td', { className: 'num' });
    const modified = h('td');
    const cache = h('td', { className: 'cache' });
    return {
      tr: h('tr', {}, h('td', {}, label), size, modified, cache, actions(entry.path)),
      update(file) {
        size.textContent = bytes(file.size);
        modified.textContent = ago(file.mtime);
        modified.title = file.mtime ?? '';
        [cache.textContent, cache.dataset.state] = cacheState(file.size, file.cached);
      },
    };
  }

  const crumbs = h('nav', { className: 'crumbs', 'aria-label': 'Directory' });
  const tbody = h('tbody');
  const empty = h('p', { className: 'empty', hidden: true }, 'This directory is empty.');
  const more = h('button', { type: 'button', hidden: true, onclick: () => act(loadMore) }, 'Load more');
  const el = h('section', { className: 'files' },
    h('div', { className: 'toolbar' }, crumbs,
      h('button', { id: 'preload-all', type: 'button', onclick: () => preload(dir) }, 'Preload'),
      h('button', { id: 'free-all', type: 'button', onclick: () => free(dir) }, 'Free cache')),
    h('table', { className: 'file-list' }, thead('Name', 'Size', 'Modified', 'Cache', ''), tbody),
    empty, more);
  const show = keyedRows(tbody, entry => entry.path, entryRow);

  function render() {
    const entries = [
      ...listing.dirs.map(path => ({ path, dir: true })),
      ...listing.files.map(file => ({ ...file, cached: listing.cached.get(file.path) ?? 0 })),
    ];
    show(entries);
    empty.hidden = listing.pages === 0 || entries.length > 0;
    more.hidden = !listing.cursor;
  }

  function fetchPage(cursor) {
    const query = new URLSearchParams({ prefix: dir, delimiter: '/', limit: PAGE_SIZE, cached: 'true' });
    if (cursor) query.set('cursor', cursor);
    return call(`/api/v1/datasets/${encodeURIComponent(name)}/files?${query}`, { signal });
  }

  function add(into, page) {
    into.dirs.push(...page.prefixes);
    into.files.push(...page.files);
    // A Map, not an object: a file may well be named "__proto__".
    for (const [path, cached] of Object.entries(page.cachedBytes ?? {})) into.cached.set(path, cached);
    into.cursor = page.nextCursor;
    into.pages++;
  }

  // Lists again from the start, as many pages as are shown: a refresh keeps what "Load more" added.
  async function reload() {
    const run = ++generation;
    const next = emptyListing();
    do add(next, await fetchPage(next.cursor));
    while (next.cursor && next.pages < listing.pages);
    if (run === generation) {
      listing = next;
      render();
    }
  }

  async function loadMore() {
    const run = ++generation;
    const page = await fetchPage(listing.cursor);
    if (run === generation) {
      add(listing, page);
      render();
    }
  }

  function open(path) {
    dir = path;
    crumbs.replaceChildren(...breadcrumbs(name, dir));
    listing = emptyListing();
    render();
    return reload();
  }

  return { el, open, reload };
}
