// A dataset directory in the URL hash, both ways: #/datasets/NAME/dir/sub/ with each segment URI-encoded, since
// object keys may hold any character.

export function datasetLink(name, dir = '') {
  const segments = dir.split('/').filter(Boolean).map(encodeURIComponent);
  return `#/datasets/${encodeURIComponent(name)}/${segments.map(s => `${s}/`).join('')}`;
}

const decode = segment => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a hand-typed '%' that is no escape
  }
};

export const nameFrom = decode;

/** The directory the segments after the name stand for: "dir/sub/", or "" for the root. */
export function dirFrom(segments) {
  const parts = segments.filter(Boolean).map(decode);
  return parts.length ? `${parts.join('/')}/` : '';
}
