// A dataset's DataLoads, newest first. Running loads follow their event stream, so their bars move live; a poll
// finds loads started elsewhere and settles each one after its stream ends.

import { call, stream } from '../api.js';
import { act, showError } from '../banner.js';
import { h, thead } from '../dom.js';
import { ago, bytes, count, rate, span } from '../format.js';
import { keyedRows } from '../rows.js';

const running = load => load.phase === 'Pending' || load.phase === 'Loading';

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
  const following = new Set();

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

  // Statuses arrive from the stream, the poll and actions, in any order: an older one never replaces a newer.
  function show(load) {
    const known = loads.get(load.id);
    if (known && Date.parse(known.updatedAt) > Date.parse(load.updatedAt)) return;
    loads.set(load.id, load);
    rows([...loads.values()].sort(newestFirst));
    empty.hidden = true;
  }

  function follow(id) {
    if (following.has(id)) return;
    following.add(id);
    stream(`${url(id)}/events`, show, signal)
      .then(() => call(url(id), { signal }))
      .then(show)
      .catch(err => showError(err, 'poll'))
      .finally(() => following.delete(id));
  }

  function add(load) {
    show(load);
    if (running(load)) follow(load.id);
  }

  async function poll() {
    const all = await call('/api/v1/dataloads', { signal });
    all.filter(load => load.dataset === dataset).forEach(add);
  }

  return { el, add, poll };
}
