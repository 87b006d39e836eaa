package io.granary.gateway.s3;

import io.granary.contracts.dataset.DatasetPaths;
import io.granary.contracts.validation.ValidationException;
import io.vertx.core.http.HttpServerRequest;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A path-style S3 request: {@code /bucket/key}. The key is percent-decoded from the raw path by hand, since
 * form decoding would turn {@code +} into a space and path normalisation would eat {@code ..} segments that S3
 * treats as part of the name (we refuse those instead).
 *
 * @param bucket null for the service ({@code GET /})
 * @param key    null for the bucket itself; otherwise the dataset path the key names
 */
public record S3Request(HttpServerRequest http, String bucket, String key, String resource) {

    public static S3Request of(HttpServerRequest http) {
        String raw = http.path();
        String path = decode(raw.startsWith("/") ? raw.substring(1) : raw);
        int slash = path.indexOf('/');
        String bucket = slash < 0 ? path : path.substring(0, slash);
        String key = slash < 0 || slash == path.length() - 1 ? null : path.substring(slash + 1);
        if (key != null) {
            try {
                key = DatasetPaths.normalize("key", key);
            } catch (ValidationException e) {
                // A control character: S3's own answer for a key it cannot take. A '.' or '..' segment: ours.
                throw e.detail().contains("control characters")
                        ? new S3Exception(400, "InvalidURI", "Couldn't parse the specified URI.")
                        : S3Exception.invalidArgument("key: " + e.detail());
            }
        }
        return new S3Request(http, bucket.isEmpty() ? null : bucket, key, '/' + path);
    }

    public String param(String name) {
        return http.getParam(name);
    }

    public boolean has(String name) {
        return http.params().contains(name);
    }

    /** Whether the query names anything but a presigned request's own X-Amz-* parameters. */
    public boolean hasSubresource() {
        for (String name : http.params().names()) {
            if (!name.regionMatches(true, 0, "X-Amz-", 0, 6)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The part the query names ({@code partNumber}), as UploadPart and GetObject take it.
     *
     * @throws S3Exception InvalidArgument when it is missing or not an integer from 1 to 10,000
     */
    public int partNumber() {
        String text = param("partNumber");
        try {
            int number = Integer.parseInt(text);
            if (number >= 1 && number <= 10_000) {
                return number;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw S3Exception.invalidArgument("Part number must be an integer between 1 and 10000, inclusive, not '"
                + text + "'");
    }

    public String header(String name) {
        return http.getHeader(name);
    }

    private static String decode(String raw) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length()) {
                    throw S3Exception.invalidArgument("the path has a broken percent-escape");
                }
                int hi = Character.digit(raw.charAt(i + 1), 16);
                int lo = Character.digit(raw.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw S3Exception.invalidArgument("the path has a broken percent-escape");
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
