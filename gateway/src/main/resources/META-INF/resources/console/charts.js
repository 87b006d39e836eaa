// Line charts over time, drawn by uPlot.

import uPlot from './lib/uplot/uPlot.esm.js';
import { WINDOW_SECONDS } from './samples.js';

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563'];
const HEIGHT = 220;

/**
 * A chart in host showing the last WINDOW_SECONDS, sized to the host's width; gone when signal aborts.
 *
 * @param format value => text, for the y axis and the legend
 * @param range  the y scale: [min, max], or (u, min, max) => [min, max]
 * @returns (times, series) => void, series being [{label, values}]
 */
export function timeChart(host, { title, format, range }, signal) {
  let plot = null;
  let labels = null;
  const size = () => ({ width: host.clientWidth, height: HEIGHT });
  const resize = new ResizeObserver(() => plot?.setSize(size()));
  resize.observe(host);
  signal.addEventListener('abort', () => {
    resize.disconnect();
    plot?.destroy();
  });

  const options = series => ({
    title,
    ...size(),
    scales: {
      x: {
        time: true,
        // The window ends at the newest sample, whatever the data spans.
        range: u => {
          const times = u.data[0];
          const end = times.length ? times[times.length - 1] : Date.now() / 1000;
          return [end - WINDOW_SECONDS, end];
        },
      },
      y: { range },
    },
    axes: [{}, { size: 90, values: (u, ticks) => ticks.map(format) }],
    series: [
      {},
      ...series.map((s, i) => ({
        label: s.label,
        stroke: COLORS[i % COLORS.length],
        width: 2,
        value: (u, v) => (v == null ? '–' : format(v)),
      })),
    ],
  });

  return (times, series) => {
    const data = [times, ...series.map(s => s.values)];
    const key = series.map(s => s.label).join('\n');
    // uPlot's series are fixed at construction: a dataset added or gone means a new chart.
    if (plot && key === labels) {
      plot.setData(data);
      return;
    }
    plot?.destroy();
    labels = key;
    plot = new uPlot(options(series), data, host);
  };
}
