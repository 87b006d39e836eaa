// Keeps one table row per key across refreshes and updates it in place: a row rebuilt between mousedown and
// mouseup would swallow the click, and the tables refresh every two seconds.

/**
 * @param create item => {tr, update(item)}: builds a row once; update fills it, now and on every refresh
 * @returns items => void, showing exactly these items in this order
 */
export function keyedRows(tbody, keyOf, create) {
  const rows = new Map();
  return items => {
    const seen = new Set();
    let at = tbody.firstChild;
    for (const item of items) {
      const key = keyOf(item);
      seen.add(key);
      let row = rows.get(key);
      if (!row) rows.set(key, (row = create(item)));
      row.update(item);
      if (row.tr === at) at = at.nextSibling;
      else tbody.insertBefore(row.tr, at);
    }
    for (const [key, row] of rows) {
      if (!seen.has(key)) {
        row.tr.remove();
        rows.delete(key);
      }
    }
  };
}
