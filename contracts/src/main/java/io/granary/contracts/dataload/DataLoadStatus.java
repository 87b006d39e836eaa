package io.granary.contracts.dataload;

import java.time.Instant;
import java.util.List;

/**
 * Progress of a DataLoad, as {@code GET /api/v1/dataloads/{id}} returns it and {@code granary.preload.status}
 * carries it.
 *
 * @param bytesPerSecond recent load rate; 0 when idle
 * @param etaSeconds     estimated seconds left; null when unknown
 * @param errors         files that failed (the first ones, capped by the preload-service)
 */
public record DataLoadStatus(String id, String dataset, DataLoadPhase phase, long filesDone, long filesTotal,
                             long bytesDone, long bytesTotal, double bytesPerSecond, Long etaSeconds,
                             Instant startedAt, Instant finishedAt, List<FileError> errors, Instant updatedAt) {

    public DataLoadStatus {
        errors = errors == null ? List.of() : List.copyOf(errors);
    }
}
