package io.granary.contracts.validation;

import com.fasterxml.jackson.annotation.JsonInclude;

/** An RFC 9457 problem body; {@code field} names the bad input, as a JSON path into the request. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, String field) {

    public static final String MEDIA_TYPE = "application/problem+json";

    public static Problem of(int status, String title, String detail, String field) {
        return new Problem("about:blank", title, status, detail, field);
    }
}
