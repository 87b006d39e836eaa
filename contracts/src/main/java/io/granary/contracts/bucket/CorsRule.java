package io.granary.contracts.bucket;

import io.granary.contracts.validation.ValidationException;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One rule of a bucket's CORS configuration, as S3 has it: which origins (at most one '*' each) may make which
 * requests, with which headers, and what the browser may see and cache.
 */
public record CorsRule(String id, List<String> allowedMethods, List<String> allowedOrigins,
                       List<String> allowedHeaders, List<String> exposeHeaders, Integer maxAgeSeconds) {

    private static final Set<String> METHODS = Set.of("GET", "PUT", "HEAD", "POST", "DELETE");

    public CorsRule {
        allowedMethods = allowedMethods == null ? List.of() : List.copyOf(allowedMethods);
        allowedOrigins = allowedOrigins == null ? List.of() : List.copyOf(allowedOrigins);
        allowedHeaders = allowedHeaders == null ? List.of() : List.copyOf(allowedHeaders);
        exposeHeaders = exposeHeaders == null ? List.of() : List.copyOf(exposeHeaders);
    }

    public CorsRule validate(String field) {
        if (allowedMethods.isEmpty()) {
            throw new ValidationException(field + ".allowedMethods", "at least one method is required");
        }
        for (String method : allowedMethods) {
            if (!METHODS.contains(method)) {
                throw new ValidationException(field + ".allowedMethods", "'" + method
                        + "' is not GET, PUT, HEAD, POST or DELETE");
            }
        }
        if (allowedOrigins.isEmpty()) {
            throw new ValidationException(field + ".allowedOrigins", "at least one origin is required");
        }
        for (String origin : allowedOrigins) {
            if (origin.indexOf('*') != origin.lastIndexOf('*')) {
                throw new ValidationException(field + ".allowedOrigins", "'" + origin
                        + "' may hold one wildcard at most");
            }
        }
        for (String header : allowedHeaders) {
            if (header.indexOf('*') != header.lastIndexOf('*')) {
                throw new ValidationException(field + ".allowedHeaders", "'" + header
                        + "' may hold one wildcard at most");
            }
        }
        if (maxAgeSeconds != null && maxAgeSeconds < 0) {
            throw new ValidationException(field + ".maxAgeSeconds", "must not be negative");
        }
        return this;
    }

    /** Whether an origin (or a requested header, case aside) matches a pattern with at most one '*'. */
    public static boolean matches(String pattern, String value, boolean ignoreCase) {
        String p = ignoreCase ? pattern.toLowerCase(Locale.ROOT) : pattern;
        String v = ignoreCase ? value.toLowerCase(Locale.ROOT) : value;
        int star = p.indexOf('*');
        if (star < 0) {
            return p.equals(v);
        }
        String head = p.substring(0, star);
        String tail = p.substring(star + 1);
        return v.length() >= head.length() + tail.length() && v.startsWith(head) && v.endsWith(tail);
    }
}
