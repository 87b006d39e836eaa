package io.granary.kit.rest;

/** What a request names does not exist: 404, with the field that named it when there is one. */
public class NotFoundException extends RuntimeException {

    private final String field;

    public NotFoundException(String field, String message) {
        super(message);
        this.field = field;
    }

    /** The input that named the missing thing ({@code dataset}, {@code path}), or null. */
    public String field() {
        return field;
    }
}
