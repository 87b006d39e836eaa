package io.granary.block.fill;

/** The metadata-service knows no dataset of this name (deleted, or never created). */
public class UnknownDatasetException extends RuntimeException {

    public UnknownDatasetException(String dataset) {
        super("no dataset '" + dataset + "'");
    }
}
