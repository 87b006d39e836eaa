package io.granary.preload.store;

import io.granary.contracts.dataload.DataLoadSpec;
import io.granary.contracts.dataload.DataLoadStatus;

/** A DataLoad as recorded: what was asked (and by which request) and how far it got. */
public record LoadRecord(String id, String requestId, DataLoadSpec spec, DataLoadStatus status) {

    public LoadRecord with(DataLoadStatus newStatus) {
        return new LoadRecord(id, requestId, spec, newStatus);
    }
}
