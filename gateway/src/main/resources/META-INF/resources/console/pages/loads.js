// A dataset's DataLoads, newest first, refreshed by the page's poll. A few loading ones also follow their event
// stream, so their bars move live: a browser holds 6 connections per host across all its tabs, and the stream of a
// load scheduled for later stays open, idle, until the load has run.

import { call, stream } from '../api.js';
import { act, showError } from '../banner.js';
import { h, thead } from '../dom.js';
import { ago, bytes, count, rate, span } from '../format.js';
import { keyedRows } from '../rows.js';

const running = load => load.phase === 'Pending' || load.phase === 'Loading';
const ended = load => load.phase === 'Complete' || load.phase === 'Failed' || load.phase === 'Cancelled';

const MAX_STREAMS = 2;

function percentDone(load) {
  if (load.phase === 'Complete') return 100; // also a load of nothing, whose bytesTotal is 0
  return load.bytesTotal > 0 ? Math.floor((100 * load.bytesDone) / load.bytesTotal) : 0;
}

// Pending loads have not started: they count from when they were last touched, which puts them on top.
const newestFirst = (a, b) => Date.parse(b.startedAt ?? b.updatedAt) - Date.parse(a.startedAt ?? a.updatedAt);

const url = id => `/api/v1/dataloads/${encodeURIComponent(id)}`;

/** @returns {el, add(load), poll()} */
export function loadsSection(dataset, signal) {
  const loads = new Map(); // id → DataLoadStatus
  const following = new Map(); // id → AbortController of its stream
  signal.addEventListener('abort', () => following.forEach(controller => controller.abort()));

  const cancel = id => act(async () => show(await call(url(id), { method: 'DELETE', signal })));

  function loadRow(load) {
    const phase = h('span', { className: 'phase' });
    const errors = h('ul', { className: 'errors' });
    const progress = h('progress', { className: 'load-progress', max: 100, value: 0 });
    const done = h('span', { className: 'progress-text' });
    const files = h('td', { className: 'num' });
    const speed = h('td', { className: 'num' });
    const eta = h('td', { className: 'num' });
    const started = h('td');
    const stop = h('button', { type: 'button', onclick: () => cancel(load.id) }, 'Cancel');
    const tr = h('tr', {},
      h('td', { className: 'id' }, load.id), h('td', {}, phase, errors), h('td', {}, progress, done),
      files, speed, eta, started, h('td', {}, stop));
    return {
      tr,
      update(s) {
        const live = running(s);
        const percent = percentDone(s);
        tr.dataset.id = s.id;
        tr.dataset.phase = s.phase;
        phase.textContent = s.phase;
        phase.dataset.phase = s.phase;
        errors.replaceChildren(...s.errors.map(e => h('li', {}, e.path ? `${e.path}: ${e.reason}` : e.reason)));
        progress.value = percent;
        done.textContent = `${percent}% · ${bytes(s.bytesDone)} / ${bytes(s.bytesTotal)}`;
        files.textContent = `${count(s.filesDone)} / ${count(s.filesTotal)}`;
        speed.textContent = live ? rate(s.bytesPerSecond) : '–';
        eta.textContent = live && s.etaSeconds != null ? span(s.etaSeconds) : '–';
        started.textContent = ago(s.startedAt);
        stop.hidden = !live;
      },
    };
  }

  const tbody = h('tbody');
  const empty = h('p', { className: 'empty' }, 'No loads of this dataset yet.');
  const el = h('section', { className: 'loads' },
    h('h2', {}, 'Data loads'),
    h('table', { id: 'dataloads' }, thead('Load', 'Phase', 'Progress', 'Files', 'Rate', 'ETA', 'Started', ''), tbody),
    empty);
  const rows = keyedRows(tbody, load => load.id, loadRow);

  function render() {
    rows([...loads.values()].sort(newestFirst));
    empty.hidden = loads.size > 0;
  }

  // Statuses arrive from the streams, the poll and actions, in any order: an older one never replaces a newer.
  function put(load) {
    const known = loads.get(load.id);
    if (known && Date.parse(known.updatedAt) > Date.parse(load.updatedAt)) return;
    loads.set(load.id, load);
    if (ended(load)) following.get(load.id)?.abort();
  }

  function show(load) {
    put(load);
    render();
  }

  // Only the poll starts streams: one that broke waits for the next poll rather than reconnecting at once.
  function follow(id) {
    const controller = new AbortController();
    following.set(id, controller);
    // Events already read when the stream was aborted are dropped: its load may be gone.
    stream(`${url(id)}/events`, load => controller.signal.aborted || show(load), controller.signal)
      .catch(err => showError(err, 'poll'))
      .finally(() => following.delete(id));
  }

  async function poll() {
    const gone = new Set(loads.keys()); // those known before asking: one added meanwhile is not gone
    for (const load of await call('/api/v1/dataloads', { signal })) {
      if (load.dataset !== dataset) continue;
      gone.delete(load.id);
      put(load);
    }
    for (const id of gone) {
      loads.delete(id);
      following.get(id)?.abort();
    }
    render();
    // The newest first, so a load just started from this page is among those followed.
    for (const load of [...loads.values()].sort(newestFirst)) {
      if (following.size >= MAX_STREAMS) break;
      if (load.phase === 'Loading' && !following.has(load.id)) follow(load.id);
    }
  }

  return { el, add: show, poll };
}
