package io.granary.metadata.service;

/** A dataset of that name exists already: 409. */
public class DatasetExistsException extends RuntimeException {

    public DatasetExistsException(String name) {
        super("dataset '" + name + "' already exists");
    }
}
