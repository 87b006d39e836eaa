// Builds elements from data without ever parsing data as HTML: strings become text nodes, props become
// properties (or attributes, for data-* and aria-*), so nothing from the API can inject markup.

export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key in el) el[key] = value;
    else el.setAttribute(key, value);
  }
  el.append(...children.flat().filter(child => child != null && child !== false));
  return el;
}

/** A horizontal bar for a 0-100 value; decorative, since the number always stands next to it. */
export function bar() {
  return h('span', { className: 'bar', 'aria-hidden': 'true' }, h('span', { className: 'fill' }));
}

export function fillBar(el, percent) {
  el.firstChild.style.width = `${Math.min(100, Math.max(0, percent))}%`;
}

export const thead = (...titles) => h('thead', {}, h('tr', {}, titles.map(title => h('th', {}, title))));
