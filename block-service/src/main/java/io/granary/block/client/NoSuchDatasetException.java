package io.granary.block.client;

import io.granary.kit.rest.NotFoundException;

/** The metadata-service knows no dataset of this name (deleted, or never created): 404 naming {@code dataset}. */
public class NoSuchDatasetException extends NotFoundException {

    public NoSuchDatasetException(String dataset) {
        super("dataset", "no dataset '" + dataset + "'");
    }
}
