// The sign-in form: the token is asked for once per browser tab.

import { h } from '../dom.js';

/** @param onToken token => void, on submit */
export function signInForm(onToken) {
  const input = h('input', { id: 'token', type: 'password', autocomplete: 'off', required: true, spellcheck: false });
  return h('form', {
    className: 'signin',
    onsubmit: event => {
      event.preventDefault();
      onToken(input.value.trim());
    },
  },
  h('h1', {}, 'Sign in'),
  h('label', { htmlFor: 'token' }, 'Access token'),
  input,
  h('p', { className: 'hint' }, h('code', {}, './granary env'), ' prints it as ', h('code', {}, 'GRANARY_TOKEN')),
  h('button', { id: 'sign-in', type: 'submit' }, 'Sign in'));
}
