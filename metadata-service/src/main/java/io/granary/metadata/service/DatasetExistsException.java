package io.granary.metadata.service;

import io.granary.kit.rest.ConflictProblem;

/** A dataset of that name exists already: 409 naming {@code name}. */
public class DatasetExistsException extends ConflictProblem {

    public DatasetExistsException(String name) {
        super("name", "dataset '" + name + "' already exists");
    }
}
