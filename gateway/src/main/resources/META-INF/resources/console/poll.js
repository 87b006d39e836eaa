// Refreshes a page every few seconds while it is shown.

import { clearError, showError } from './banner.js';

/**
 * Runs tick now, then `ms` after each run settles (never overlapping, so a slow gateway does not pile up calls),
 * until signal aborts.
 */
export function every(ms, tick, signal) {
  let timer;
  const run = async () => {
    try {
      await tick();
      clearError('poll');
    } catch (err) {
      showError(err, 'poll');
    }
    if (!signal.aborted) timer = setTimeout(run, ms);
  };
  signal.addEventListener('abort', () => clearTimeout(timer));
  run();
}
