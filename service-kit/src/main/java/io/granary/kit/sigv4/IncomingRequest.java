package io.granary.kit.sigv4;

import io.vertx.core.http.HttpServerRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

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

    /** As Vert.x received it. */
    public static IncomingRequest of(HttpServerRequest http) {
        Map<String, List<String>> headers = new TreeMap<>();
        http.headers().forEach(entry -> headers.computeIfAbsent(entry.getKey().toLowerCase(Locale.ROOT),
                name -> new ArrayList<>()).add(entry.getValue()));
        if (!headers.containsKey("host") && http.authority() != null) {
            headers.put("host", List.of(http.authority().toString()));  // HTTP/2 carries it as :authority
        }
        return new IncomingRequest(http.method().name(), http.path(), http.query(), headers);
    }

    /** The first value of a header (name lower-case), or null. */
    public String header(String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
