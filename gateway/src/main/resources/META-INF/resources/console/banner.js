// The one error banner. Errors from background refreshes clear when a refresh works again (the gateway came back);
// an error from something the user did stays until the user's next action succeeds.

import { Refused } from './api.js';

const banner = () => document.getElementById('error');
let shownFrom = null;

export function showError(err, from = 'action') {
  // Leaving a page aborts its requests; a refused token shows the sign-in form instead.
  if (err.name === 'AbortError' || err instanceof Refused) return;
  const el = banner();
  el.textContent = err.message;
  el.hidden = false;
  shownFrom = from;
}

export function clearError(from = 'action') {
  if (shownFrom === null || (from === 'poll' && shownFrom !== 'poll')) return;
  const el = banner();
  el.textContent = '';
  el.hidden = true;
  shownFrom = null;
}

/** Runs a user's action: a failure shows, a success clears what was shown. */
export async function act(action) {
  try {
    await action();
    clearError();
  } catch (err) {
    showError(err);
  }
}
