package io.granary.kit.rest;

/**
 * What a request names does not exist: 404, with the field that named it when there is one. A problem, not an
 * exception, by name: JAX-RS's {@code NotFoundException} is the one for a path no resource serves.
 */
public class NotFoundProblem extends RuntimeException {

    private final String field;

    public NotFoundProblem(String field, String message) {
        super(message);
        this.field = field;
    }

    /** The input that named the missing thing ({@code dataset}, {@code path}), or null. */
    public String field() {
        return field;
    }
}
