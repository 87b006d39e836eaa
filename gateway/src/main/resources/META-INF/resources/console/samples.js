// The datasets' recent history behind the charts, sampled in this browser: the API keeps counters, not series.
// Module state, so it survives moving between pages for as long as the console is open.

export const WINDOW_SECONDS = 300;

const samples = []; // {t: unix seconds, statuses: Map(dataset name → status)}

export function record(datasets, t = Date.now() / 1000) {
  samples.push({ t, statuses: new Map(datasets.map(d => [d.spec.name, d.status])) });
  while (samples[0].t < t - WINDOW_SECONDS) samples.shift();
}

// Bytes per second between two samples; null where there is no earlier sample or the counter went back (workers
// restarted).
function readRate(before, after, name) {
  const a = before?.statuses.get(name);
  const b = after.statuses.get(name);
  if (!a || !b) return null;
  const perSecond = (b.bytesRead - a.bytesRead) / (after.t - before.t);
  return perSecond >= 0 ? perSecond : null;
}

/** Series for uPlot: shared times, then one {label, values} per dataset seen in the window. */
export function history() {
  const names = [...new Set(samples.flatMap(s => [...s.statuses.keys()]))].sort();
  const hitRatio = names.map(name => ({
    label: name,
    values: samples.map(s => {
      const r = s.statuses.get(name)?.hitRatio;
      return r == null ? null : r * 100;
    }),
  }));
  const throughput = names.map(name => ({
    label: name,
    values: samples.map((s, i) => readRate(samples[i - 1], s, name)),
  }));
  return { times: samples.map(s => s.t), hitRatio, throughput };
}
