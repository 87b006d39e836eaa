package io.granary.metadata.service;

/** No dataset of that name: 404. */
public class DatasetNotFoundException extends RuntimeException {

    public DatasetNotFoundException(String name) {
        super("dataset '" + name + "' does not exist");
    }
}
