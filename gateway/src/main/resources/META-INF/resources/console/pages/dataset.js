// One dataset: its status, a file browser to preload or free any directory or file, and its DataLoads.

import { call } from '../api.js';
import { act, showError } from '../banner.js';
import { bar, fillBar, h } from '../dom.js';
import { bytes, count, ratio, wholePercent } from '../format.js';
import { every } from '../poll.js';
import { fileBrowser } from './files.js';
import { loadsSection } from './loads.js';

function summary(name) {
  const phase = h('dd', { className: 'phase' });
  const files = h('dd');
  const size = h('dd');
  const meter = bar();
  const percent = h('span', { id: 'dataset-cached' });
  const cachedBytes = h('span', { className: 'muted' });
  const hits = h('dd');
  const reason = h('p', { className: 'reason', hidden: true });
  const item = (term, value) => h('div', {}, h('dt', {}, term), value);
  const el = h('section', { className: 'summary' },
    h('h1', {}, name),
    h('dl', {},
      item('Phase', phase), item('Files', files), item('Size', size),
      item('Cached', h('dd', {}, meter, percent, ' ', cachedBytes)), item('Hit ratio', hits)),
    reason);
  return {
    el,
    set(status) {
      phase.textContent = status.phase;
      phase.dataset.phase = status.phase;
      files.textContent = count(status.fileCount);
      size.textContent = bytes(status.ufsTotalBytes);
      percent.textContent = wholePercent(status.cachedPercentage);
      cachedBytes.textContent = `(${bytes(status.cachedBytes)})`;
      fillBar(meter, status.cachedPercentage);
      hits.textContent = ratio(status.hitRatio);
      reason.hidden = status.phase !== 'Failed' || !status.reason;
      reason.textContent = status.reason ?? '';
    },
  };
}

export function datasetPage(view, { name, path }, signal) {
  const base = `/api/v1/datasets/${encodeURIComponent(name)}`;
  const header = summary(name);
  const loads = loadsSection(name, signal);

  function preload(target) {
    if (!window.confirm(`Preload ${target || 'all'} of ${name}?`)) return;
    act(async () => {
      const body = { dataset: name, targets: [{ path: target }] };
      const { id, status } = await call('/api/v1/dataloads', { method: 'POST', body, signal });
      loads.add({ ...status, id });
    });
  }

  function free(target) {
    if (!window.confirm(target ? `Free the cache of ${target} in ${name}?` : `Free the whole cache of ${name}?`)) return;
    act(async () => {
      await call(target ? `${base}/cache?${new URLSearchParams({ path: target })}` : `${base}/cache`,
        { method: 'DELETE', signal });
      await Promise.all([refresh(), files.reload()]);
    });
  }

  const files = fileBrowser(name, { preload, free }, signal);
  view.append(header.el, files.el, loads.el);

  // The listing's cache column follows the dataset's cached bytes: listed again whenever they change. While a load
  // runs they change on every poll; the file browser folds reloads asked for during a listing into one after it.
  let lastCached;
  async function refresh() {
    const { status } = await call(base, { signal });
    header.set(status);
    if (lastCached !== undefined && status.cachedBytes !== lastCached) {
      files.reload().catch(err => showError(err, 'poll'));
    }
    lastCached = status.cachedBytes;
  }

  act(() => files.open(path));
  every(2000, () => Promise.all([refresh(), loads.poll()]), signal);

  // Moving to another directory of the same dataset keeps the page, and the load streams it follows.
  return params => act(() => files.open(params.path));
}
