package io.granary.ufs;

import java.util.ArrayList;
import java.util.List;

/** Key rules shared by every under-store, so S3 and local directories accept and order paths alike. */
final class Keys {

    private Keys() {
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
