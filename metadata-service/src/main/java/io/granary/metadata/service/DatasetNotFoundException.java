package io.granary.metadata.service;

import io.granary.kit.rest.NotFoundException;

/** No dataset of that name: 404. */
public class DatasetNotFoundException extends NotFoundException {

    public DatasetNotFoundException(String name) {
        super(null, "dataset '" + name + "' does not exist");
    }
}
