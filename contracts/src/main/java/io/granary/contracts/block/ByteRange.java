package io.granary.contracts.block;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One HTTP byte range ({@code Range: bytes=first-last}, {@code bytes=first-}, {@code bytes=-suffix}), as S3 and the
 * block API take it. Several ranges, or a header that does not parse, are ignored as RFC 9110 allows: the whole
 * representation is sent.
 */
public record ByteRange(long first, long last, long suffix) {

    private static final long OPEN = -1;
    private static final Pattern SINGLE = Pattern.compile("bytes=(\\d{0,19})-(\\d{0,19})");

    /** @return null when there is no single, well-formed byte range */
    public static ByteRange parse(String header) {
        if (header == null) {
            return null;
        }
        Matcher matcher = SINGLE.matcher(header.strip());
        if (!matcher.matches() || matcher.group(1).isEmpty() && matcher.group(2).isEmpty()) {
            return null;
        }
        try {
            if (matcher.group(1).isEmpty()) {
                return new ByteRange(OPEN, OPEN, Long.parseLong(matcher.group(2)));
            }
            long first = Long.parseLong(matcher.group(1));
            long last = matcher.group(2).isEmpty() ? OPEN : Long.parseLong(matcher.group(2));
            return last != OPEN && last < first ? null : new ByteRange(first, last, OPEN);
        } catch (NumberFormatException e) {
            return null;  // beyond a long: nobody has such a file
        }
    }

    /**
     * The bytes this range selects of a representation of {@code size} bytes.
     *
     * @return null when the range is unsatisfiable (it starts at or after the end, or is an empty suffix)
     */
    public Slice resolve(long size) {
        if (suffix != OPEN) {
            long length = Math.min(suffix, size);
            return length == 0 ? null : new Slice(size - length, length);
        }
        if (first >= size) {
            return null;
        }
        long end = last == OPEN ? size - 1 : Math.min(last, size - 1);
        return new Slice(first, end - first + 1);
    }

    /** A resolved range: {@code length} bytes from {@code offset}. */
    public record Slice(long offset, long length) {

        /** The {@code Content-Range} value for a representation of {@code size} bytes. */
        public String contentRange(long size) {
            return "bytes " + offset + '-' + (offset + length - 1) + '/' + size;
        }
    }
}
