package io.granary.ufs;

import java.util.ArrayList;
import java.util.List;

/**
 * Key rules shared by every under-store, so S3, local directories and HDFS accept and order paths alike, and the
 * names of Granary's own entries in a directory tree.
 */
final class Keys {

    /** In-progress writes: hidden, never listed, renamed over the target when complete. */
    static final String TEMP_PREFIX = ".granary-upload-";

    /** Multipart uploads in progress, at the top of a mount's root; not part of the mount. */
    static final String UPLOADS_DIR = ".granary-uploads";

    /** Granary's own state beside the data of a local under-store: never served, never written through a mount. */
    static final String STATE_DIR = ".granary";

    private Keys() {
    }

    /**
     * True for keys inside the uploads directory or {@value #STATE_DIR} (where {@code ./granary up} keeps keys,
     * secrets and caches when its data directory is also a mount), neither of which is part of the mount (on any
     * case-folding disk too).
     */
    static boolean reserved(String key) {
        int slash = key.indexOf('/');
        String top = slash < 0 ? key : key.substring(0, slash);
        return top.equalsIgnoreCase(UPLOADS_DIR) || top.equalsIgnoreCase(STATE_DIR);
    }

    /**
     * The key of an object that may be written: not one of {@link #reserved} Granary's own.
     *
     * @param where how messages name the store
     */
    static String writable(String path, Object where) {
        String key = object(path);
        if (reserved(key)) {
            throw new PathOutsideMountException("'" + key + "' is reserved in " + where
                    + " for Granary's own state and multipart uploads in progress");
        }
        return key;
    }

    /** A ranged read's bounds: an offset from 0, a length from 0, or -1 for the rest of the object. */
    static void checkRange(long offset, long length) {
        if (offset < 0 || length < -1) {
            throw new IllegalArgumentException("bad range: offset " + offset + ", length " + length);
        }
    }

    /** True for a name Granary gives its own passing entries in a mount's root: uploads in progress, temporary files. */
    static boolean ownHidden(String name) {
        return name.equals(UPLOADS_DIR) || name.startsWith(TEMP_PREFIX);
    }

    /** The normalised key of an object: not empty, no trailing '/', no '..'. */
    static String object(String path) {
        if (path == null) {
            throw new IllegalArgumentException("path is required");
        }
        String key = normalise(path);
        if (key.isEmpty() || path.endsWith("/")) {
            throw new IllegalArgumentException("'" + path + "' does not name an object");
        }
        return key;
    }

    /** The normalised listing prefix: may be empty; a trailing '/' is kept because it changes the meaning. */
    static String prefix(String prefix) {
        if (prefix == null) {
            return "";
        }
        String key = normalise(prefix);
        return !key.isEmpty() && prefix.endsWith("/") ? key + "/" : key;
    }

    /** True for a "/"-delimited listing, false for a flat one; S3's other delimiters are not supported. */
    static boolean delimited(String delimiter) {
        if (delimiter == null || delimiter.isEmpty()) {
            return false;
        }
        if (!delimiter.equals("/")) {
            throw new IllegalArgumentException("only '/' is supported as a delimiter, not '" + delimiter + "'");
        }
        return true;
    }

    static int pageSize(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive, not " + limit);
        }
        return Math.min(limit, UnderStore.MAX_PAGE);
    }

    /** S3's key order: UTF-8 byte order, which is code point order (String.compareTo differs above U+FFFF). */
    static int compare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    private static String normalise(String path) {
        if (path.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a path cannot contain NUL");
        }
        List<String> segments = new ArrayList<>();
        for (String segment : path.split("/")) {
            if (segment.equals("..")) {
                throw new PathOutsideMountException("'" + path + "' leaves the mount root: '..' is not allowed");
            }
            if (!segment.isEmpty() && !segment.equals(".")) {
                segments.add(segment);
            }
        }
        return String.join("/", segments);
    }
}
