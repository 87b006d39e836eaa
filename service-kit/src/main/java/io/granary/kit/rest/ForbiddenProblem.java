package io.granary.kit.rest;

/** The caller may not touch what the request names: 403, with the field that names it. */
public class ForbiddenProblem extends RuntimeException {

    private final String field;

    public ForbiddenProblem(String field, String message) {
        super(message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
