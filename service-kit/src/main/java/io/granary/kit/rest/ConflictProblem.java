package io.granary.kit.rest;

/** A request at odds with the state of what it names (it exists already; the worker is leaving): 409, with the field. */
public class ConflictProblem extends RuntimeException {

    private final String field;

    public ConflictProblem(String field, String message) {
        super(message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
