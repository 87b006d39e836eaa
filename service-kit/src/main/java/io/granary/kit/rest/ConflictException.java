package io.granary.kit.rest;

/** What a request would create exists already: 409, with the field that names it. */
public class ConflictException extends RuntimeException {

    private final String field;

    public ConflictException(String field, String message) {
        super(message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
