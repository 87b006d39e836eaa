package io.granary.metadata.service;

import io.granary.kit.rest.ConflictException;

/** A dataset of that name exists already: 409 naming {@code name}. */
public class DatasetExistsException extends ConflictException {

    public DatasetExistsException(String name) {
        super("name", "dataset '" + name + "' already exists");
    }
}
