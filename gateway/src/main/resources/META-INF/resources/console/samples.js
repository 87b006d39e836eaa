// The datasets' recent history behind the charts, sampled in this browser: the API keeps counters, not series.
// Module state, so it survives moving between pages for as long as the console is open.

export const WINDOW_SECONDS = 300;

const samples = []; // {t: unix seconds, statuses: Map(dataset name → status)}

export function record(datasets, t = Date.now() / 1000) {
  samples.push({ t, statuses: new Map(datasets.map(d => [d.spec.name, d.status])) });
  while (samples[0].t < t - WINDOW_SECONDS) samples.shift();
}

// Workers report bytesRead with their heartbeats (every 5 s by default) while the page samples every 2 s, so the
// rate between neighbouring samples swings between 0 and 2.5 times the real one: average over a window instead.
export const AVERAGE_SECONDS = 15;
const MIN_SPAN_SECONDS = 5;

// Bytes per second at samples[i], against the oldest sample at most AVERAGE_SECONDS older; null while the window
// spans less than MIN_SPAN_SECONDS, as it does where the counter just went back.
function readRate(i, name) {
  const now = samples[i];
  const last = now.statuses.get(name);
  let from = null; // {t, status}: the oldest sample in the window
  let later = last;
  for (let j = i - 1; later && j >= 0 && samples[j].t >= now.t - AVERAGE_SECONDS; j--) {
    const status = samples[j].statuses.get(name);
    // A window never spans the dataset made anew, or the counter going back (workers restarted).
    if (!status || status.bytesRead > later.bytesRead) break;
    later = status;
    from = { t: samples[j].t, status };
  }
  if (!from || now.t - from.t < MIN_SPAN_SECONDS) return null;
  return (last.bytesRead - from.status.bytesRead) / (now.t - from.t);
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
    values: samples.map((s, i) => readRate(i, name)),
  }));
  return { times: samples.map(s => s.t), hitRatio, throughput };
}
