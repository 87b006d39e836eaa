package io.granary.gateway.auth;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What arrived, as the HTTP server saw it. headers: names lower-cased, values as received. rawPath and rawQuery
 * exactly as on the request line (still percent-encoded; rawQuery may be null).
 */
public record IncomingRequest(String method, String rawPath, String rawQuery, Map<String, List<String>> headers) {

    public IncomingRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(rawPath, "rawPath");
        headers = headers == null ? Map.of() : headers;
    }

    /** The first value of a header (name lower-case), or null. */
    public String header(String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
