package io.granary.ufs;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * An object's metadata as S3 keeps it with the bytes: the standard headers a GET gives back (Content-Type,
 * Cache-Control, Content-Disposition, Content-Encoding, Content-Language, Expires) and user metadata
 * ({@code x-amz-meta-*}), by lower-case header name.
 */
public final class ObjectMetadata {

    /** The standard headers stored with an object and returned with it. */
    public static final List<String> STANDARD = List.of("content-type", "cache-control", "content-disposition",
            "content-encoding", "content-language", "expires");

    public static final String USER_PREFIX = "x-amz-meta-";

    /** S3's limit on user metadata: names and values together, in bytes (MetadataTooLarge above it). */
    public static final int MAX_USER_BYTES = 2048;

    private ObjectMetadata() {
    }

    /** Whether a header (any case) is part of an object's metadata. */
    public static boolean isMetadata(String header) {
        String name = header.toLowerCase(Locale.ROOT);
        return name.startsWith(USER_PREFIX) && name.length() > USER_PREFIX.length() || STANDARD.contains(name);
    }

    /** The metadata among {@code headers}, names lower-cased, in name order. */
    public static Map<String, String> of(Iterable<Map.Entry<String, String>> headers) {
        Map<String, String> metadata = new TreeMap<>();
        for (Map.Entry<String, String> header : headers) {
            if (isMetadata(header.getKey())) {
                metadata.merge(header.getKey().toLowerCase(Locale.ROOT), header.getValue(), (a, b) -> a + ", " + b);
            }
        }
        String encoding = metadata.get("content-encoding");
        if (encoding != null) {
            // aws-chunked is how the request body was framed, not how the object is encoded: S3 drops it too.
            String kept = Arrays.stream(encoding.split(",")).map(String::strip)
                    .filter(token -> !token.isEmpty() && !token.equalsIgnoreCase("aws-chunked"))
                    .collect(Collectors.joining(", "));
            if (kept.isEmpty()) {
                metadata.remove("content-encoding");
            } else {
                metadata.put("content-encoding", kept);
            }
        }
        return metadata;
    }

    /** One string for a place that keeps strings (a local file's extended attribute): NUL never occurs in a header. */
    static String encode(Map<String, String> metadata) {
        StringBuilder text = new StringBuilder();
        metadata.forEach((name, value) -> text.append(name).append('\0').append(value).append('\0'));
        return text.toString();
    }

    static Map<String, String> decode(String text) {
        Map<String, String> metadata = new TreeMap<>();
        String[] parts = text.split("\0", -1);
        for (int i = 0; i + 1 < parts.length; i += 2) {
            metadata.put(parts[i], parts[i + 1]);
        }
        return metadata;
    }
}
