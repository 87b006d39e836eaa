// The management API on this origin: every call carries the bearer token, every failure becomes an Error whose
// message is fit to show as is.

const KEY = 'granary.token';

// Per tab and gone with it: a console left open elsewhere does not keep the token.
export const token = {
  get: () => sessionStorage.getItem(KEY),
  set: value => sessionStorage.setItem(KEY, value),
  clear: () => sessionStorage.removeItem(KEY),
};

/** A 401: the sign-in form takes over, so no banner shows it. */
export class Refused extends Error {
  constructor() {
    super('the token was refused');
  }
}

let refused = () => {};

export function whenRefused(handler) {
  refused = handler;
}

// A 503 with Retry-After (a service behind the gateway restarting, Kafka not taking an event) is asked again after
// the seconds it names, for up to this long in all, as the CLI does.
const UNAVAILABLE_FOR_MS = 90_000;
const LONGEST_WAIT_MS = 10_000;

/** Milliseconds a 503 asks to wait before the call is made again; null for any other answer. */
function retryAfter(res) {
  if (res.status !== 503) return null;
  const seconds = Number.parseInt(res.headers.get('Retry-After') ?? '', 10);
  return Number.isNaN(seconds) || seconds < 0 ? null : Math.min(Math.max(seconds, 1) * 1000, LONGEST_WAIT_MS);
}

function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new DOMException('aborted', 'AbortError'));
    }, { once: true });
  });
}

async function request(path, { method = 'GET', body, signal, accept = 'application/json' }) {
  const headers = { Accept: accept, Authorization: `Bearer ${token.get()}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const giveUpAt = Date.now() + UNAVAILABLE_FOR_MS;
  let res;
  for (;;) {
    try {
      res = await fetch(path, { method, headers, signal, cache: 'no-store', body: body && JSON.stringify(body) });
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      throw new Error('cannot reach the gateway');
    }
    const wait = retryAfter(res);
    if (wait === null || Date.now() + wait > giveUpAt) break;
    await pause(wait, signal);
  }
  if (res.status === 401) {
    token.clear();
    refused();
    throw new Refused();
  }
  if (!res.ok) throw new Error(await problem(res));
  return res;
}

// application/problem+json as "400 Bad Request: path: must not contain '..'"; the status line when the body is not one.
async function problem(res) {
  const p = await res.json().catch(() => null) ?? {};
  const title = p.title || res.statusText || 'Error';
  // Granary's details often start with the field already; name it once.
  const field = p.field && !p.detail?.startsWith(`${p.field}:`) ? `${p.field}: ` : '';
  const detail = p.detail ? `: ${field}${p.detail}` : '';
  return `${res.status} ${title}${detail}`;
}

/** The parsed JSON answer (null when there is no body). */
export async function call(path, options = {}) {
  const text = await (await request(path, options)).text();
  return text ? JSON.parse(text) : null;
}

/**
 * Reads a server-sent events stream with fetch, since EventSource cannot send the Authorization header; hands each
 * event's data, parsed as JSON, to onData. Resolves when the stream ends, or breaks: the caller re-reads the state
 * either way.
 */
export async function stream(path, onData, signal) {
  const res = await request(path, { signal, accept: 'text/event-stream' });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      return;
    }
    if (chunk.done) return;
    // Split on blank lines; the last piece may be an event still arriving.
    const events = (buffer + chunk.value).split(/\r?\n\r?\n/);
    buffer = events.pop();
    for (const event of events) {
      const data = event.split(/\r?\n/)
        .filter(line => line.startsWith('data:'))
        .map(line => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) onData(JSON.parse(data));
    }
  }
}
