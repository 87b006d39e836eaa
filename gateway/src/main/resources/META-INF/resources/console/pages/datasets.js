// Every dataset at a glance, refreshed every 2 s, with the recent hit ratio and read throughput of each.

import { call } from '../api.js';
import { timeChart } from '../charts.js';
import { bar, fillBar, h, thead } from '../dom.js';
import { bytes, count, rate, ratio, wholePercent } from '../format.js';
import { datasetLink } from '../links.js';
import { every } from '../poll.js';
import { keyedRows } from '../rows.js';
import { AVERAGE_SECONDS, history, record } from '../samples.js';

function datasetRow({ spec }) {
  const phase = h('td', { className: 'phase' });
  const files = h('td', { className: 'num' });
  const size = h('td', { className: 'num' });
  const meter = bar();
  const percent = h('span');
  const cached = h('td', { className: 'cached-percentage' }, meter, percent);
  const hits = h('td', { className: 'num' });
  const tr = h('tr', { 'data-dataset': spec.name },
    h('td', {}, h('a', { href: datasetLink(spec.name) }, spec.name)), phase, files, size, cached, hits);
  return {
    tr,
    update({ status }) {
      phase.textContent = status.phase;
      phase.dataset.phase = status.phase;
      phase.title = status.reason ?? '';
      files.textContent = count(status.fileCount);
      size.textContent = bytes(status.ufsTotalBytes);
      percent.textContent = wholePercent(status.cachedPercentage);
      cached.title = `${bytes(status.cachedBytes)} cached`;
      fillBar(meter, status.cachedPercentage);
      hits.textContent = ratio(status.hitRatio);
    },
  };
}

export function datasetsPage(view, _params, signal) {
  const tbody = h('tbody');
  const empty = h('p', { className: 'empty', hidden: true }, 'No datasets yet.');
  const hitChart = h('div', { className: 'chart' });
  const readChart = h('div', { className: 'chart' });
  view.append(
    h('h1', {}, 'Datasets'),
    h('table', { id: 'datasets' }, thead('Name', 'Phase', 'Files', 'Size', 'Cached', 'Hit ratio'), tbody),
    empty,
    h('div', { className: 'charts' }, hitChart, readChart),
  );

  const show = keyedRows(tbody, d => d.spec.name, datasetRow);
  const drawHits = timeChart(hitChart, {
    title: 'Hit ratio',
    format: wholePercent,
    range: [0, 100],
  }, signal);
  const drawReads = timeChart(readChart, {
    title: `Read throughput (${AVERAGE_SECONDS} s average)`,
    format: rate,
    range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1024],
  }, signal);

  every(2000, async () => {
    const datasets = await call('/api/v1/datasets', { signal });
    datasets.sort((a, b) => a.spec.name.localeCompare(b.spec.name));
    show(datasets);
    empty.hidden = datasets.length > 0;
    record(datasets);
    const { times, hitRatio, throughput } = history();
    drawHits(times, hitRatio);
    drawReads(times, throughput);
  }, signal);
}
