package io.granary.kit.rest;

/** No dataset of that name (never created, or deleted): 404 naming {@code dataset}, in the one wording for it. */
public class DatasetNotFoundException extends NotFoundProblem {

    public DatasetNotFoundException(String name) {
        super("dataset", message(name));
    }

    /** How a missing dataset is said, also where naming one is bad input rather than a missing resource. */
    public static String message(String name) {
        return "no dataset '" + name + "'";
    }
}
