package io.granary.preload.service;

public class DataLoadNotFoundException extends RuntimeException {

    public DataLoadNotFoundException(String id) {
        super("no DataLoad '" + id + "'");
    }
}
