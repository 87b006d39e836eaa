// A dataset directory in the URL hash, both ways: #/datasets/NAME/dir/sub/ with each segment URI-encoded, since
// object keys may hold any character. Empty segments are kept: the key a//b/x lies under a//b/, not a/b/.

/** The segments of a directory "dir/sub/" (its final '/' optional): ["dir", "sub"], or [] for the root. */
export const segmentsOf = dir => (dir ? dir.replace(/\/$/, '').split('/') : []);

export function datasetLink(name, dir = '') {
  const path = segmentsOf(dir).map(segment => `${encodeURIComponent(segment)}/`).join('');
  return `#/datasets/${encodeURIComponent(name)}/${path}`;
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
  // Only what follows the final '/' can be empty without naming a directory.
  const parts = segments.at(-1) === '' ? segments.slice(0, -1) : segments;
  return parts.map(segment => `${decode(segment)}/`).join('');
}
