// The cache workers: liveness, how well they serve, how full each cache level (MEM, SSD, HDD) is. Refreshed every 2 s.

import { call } from '../api.js';
import { bar, fillBar, h, thead } from '../dom.js';
import { ago, bytes, ratio } from '../format.js';
import { every } from '../poll.js';
import { keyedRows } from '../rows.js';

function levelLine(level) {
  const meter = bar();
  fillBar(meter, level.quotaBytes > 0 ? (100 * level.usedBytes) / level.quotaBytes : 0);
  return h('div', { className: 'level', title: level.path },
    meter, `${level.medium} ${bytes(level.usedBytes)} / ${bytes(level.quotaBytes)}`);
}

function workerRow({ id }) {
  const address = h('div', { className: 'muted' });
  const node = h('td');
  const state = h('span', { className: 'state' });
  const heartbeat = h('div', { className: 'muted' });
  const up = h('td');
  const hits = h('td', { className: 'num' });
  const served = h('td', { className: 'num' });
  const levels = h('td');
  const tr = h('tr', { 'data-worker': id },
    h('td', { className: 'id' }, id, address), node, h('td', {}, state, heartbeat), up, hits, served, levels);
  return {
    tr,
    update(w) {
      address.textContent = w.address;
      node.textContent = w.node;
      // A draining worker still serves but owns nothing: say how far its hand-over is.
      state.textContent = !w.live ? 'down'
        : w.drain ? `${w.drain.phase.toLowerCase()} ${w.drain.moved}/${w.drain.blocks}` : 'live';
      state.dataset.live = w.live;
      heartbeat.textContent = `heartbeat ${ago(w.lastHeartbeat)}`;
      up.textContent = ago(w.startedAt);
      const reads = w.hits + w.misses;
      hits.textContent = ratio(reads > 0 ? w.hits / reads : null);
      served.textContent = bytes(w.bytesServed);
      levels.replaceChildren(...w.levels.map(levelLine));
    },
  };
}

export function workersPage(view, _params, signal) {
  const tbody = h('tbody');
  const empty = h('p', { className: 'empty', hidden: true }, 'No workers have registered.');
  view.append(
    h('h1', {}, 'Workers'),
    h('table', { id: 'workers' },
      thead('Worker', 'Node', 'State', 'Up since', 'Hit ratio', 'Bytes served', 'Levels'), tbody),
    empty);
  const show = keyedRows(tbody, w => w.id, workerRow);

  // Needs the admin role: a 403 stays on this page as an error, as any other failure does.
  every(2000, async () => {
    const workers = await call('/api/v1/workers', { signal });
    workers.sort((a, b) => a.id.localeCompare(b.id));
    show(workers);
    empty.hidden = workers.length > 0;
  }, signal);
}
