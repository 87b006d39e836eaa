// How numbers from the API read to a person: binary byte units, percentages, times relative to now. Percentages
// round down, as the CLI's do: 99.5% cached is not "100%".

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function bytes(n) {
  if (Math.abs(n) < 1024) return `${Math.round(n)} B`;
  let unit = -1;
  do {
    n /= 1024;
    unit++;
  } while (Math.abs(n) >= 1024 && unit < UNITS.length - 1);
  return `${n.toFixed(1)} ${UNITS[unit]}`;
}

export const rate = n => `${bytes(n)}/s`;

export const count = n => n.toLocaleString('en-US');

/** A 0-1 ratio as a percentage to a tenth; null means nothing was measured yet. */
export const ratio = r => (r == null ? '–' : `${(Math.floor(r * 1000) / 10).toFixed(1)}%`);

/** The hook the browser tests read: a 0-100 percentage, whole. */
export const wholePercent = p => `${Math.floor(p)}%`;

export function span(seconds) {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

export function ago(iso) {
  if (!iso) return '–';
  // A clock a little ahead of the browser's must not read as "in the future".
  const seconds = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  return seconds < 5 ? 'just now' : `${span(seconds)} ago`;
}
