package io.granary.preload.service;

import io.granary.kit.rest.NotFoundProblem;

/** No DataLoad of that id on this replica: 404. */
public class DataLoadNotFoundException extends NotFoundProblem {

    public DataLoadNotFoundException(String id) {
        super(null, "no DataLoad '" + id + "'");
    }
}
