package io.granary.preload.service;

import io.granary.contracts.validation.ValidationException;

/** The DataLoad names a dataset the metadata-service does not know: bad input, reported on field {@code dataset}. */
public class UnknownDatasetException extends ValidationException {

    public UnknownDatasetException(String dataset) {
        super("dataset", "no dataset '" + dataset + "'");
    }
}
