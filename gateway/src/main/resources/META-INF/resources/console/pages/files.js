// The file browser: one directory of a dataset, subdirectories first, then files with how much of each is cached.

import { call } from '../api.js';
import { act } from '../banner.js';
import { h, thead } from '../dom.js';
import { ago, bytes } from '../format.js';
import { datasetLink, segmentsOf } from '../links.js';
import { keyedRows } from '../rows.js';

const PAGE_SIZE = '200';

/** [text, kind, title] of a file's cached bytes against its size; null bytes when no worker told. */
function cacheState(size, cached) {
  if (size === 0) return ['cached', 'full', ''];
  if (cached == null) return ['?', 'unknown', 'unknown'];
  if (cached >= size) return ['cached', 'full', ''];
  if (cached <= 0) return ['not cached', 'none', ''];
  // Whole percents, yet a file partly cached never reads "0%" or "100%".
  return [`${Math.min(99, Math.max(1, Math.floor((100 * cached) / size)))}%`, 'partial', ''];
}

function breadcrumbs(name, dir) {
  const parts = segmentsOf(dir);
  const link = i => h('a', { href: datasetLink(name, `${parts.slice(0, i + 1).join('/')}/`) }, parts[i]);
  // A directory with an empty name has no text to click: its slashes show it.
  const crumbs = parts.flatMap((part, i) => (part ? [' / ', link(i)] : ' /'));
  return [h('a', { href: datasetLink(name) }, name), ...crumbs, ' /'];
}

const emptyListing = () => ({ dirs: [], files: [], cached: new Map(), cursor: null, pages: 0 });

/**
 * @param actions {preload(path), free(path)}, which confirm and act; "" is the whole dataset
 * @returns {el, open(dir), reload()}
 */
export function fileBrowser(name, { preload, free }, signal) {
  let dir = '';
  let listing = emptyListing();
  let pages = 1; // how many pages to show: "Load more" adds one, a reload lists them all again
  let work = null; // {stale}: the listing in progress for the directory shown, which every request joins

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
        [cache.textContent, cache.dataset.state, cache.title] = cacheState(file.size, file.cached);
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
      ...listing.files.map(file => ({ ...file, cached: listing.cached.get(file.path) })),
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
    // A Map, not an object: a file may well be named "__proto__". No map, or no entry, means unknown.
    for (const [path, cached] of Object.entries(page.cachedBytes ?? {})) into.cached.set(path, cached);
    into.cursor = page.nextCursor;
    into.pages++;
  }

  // One listing at a time, never superseded (one slower than the 2 s refresh would otherwise never show): a reload
  // asked for meanwhile marks it stale, and it lists once more when done, for every caller at once.
  async function list(state) {
    while (state.stale || (listing.cursor && listing.pages < pages)) {
      const next = state.stale ? emptyListing() : listing;
      state.stale = false;
      do {
        const page = await fetchPage(next.cursor);
        if (work !== state) return; // the directory was left
        add(next, page);
      } while (next.cursor && next.pages < pages);
      listing = next;
      render();
    }
  }

  function request(stale) {
    if (work) {
      work.stale ||= stale;
      return work.done;
    }
    const state = { stale };
    work = state;
    state.done = list(state).finally(() => {
      if (work === state) work = null;
    });
    return state.done;
  }

  const reload = () => request(true);

  function loadMore() {
    pages = listing.pages + 1;
    return request(false);
  }

  function open(path) {
    dir = path;
    crumbs.replaceChildren(...breadcrumbs(name, dir));
    listing = emptyListing();
    pages = 1;
    work = null;
    render();
    return reload();
  }

  return { el, open, reload };
}
