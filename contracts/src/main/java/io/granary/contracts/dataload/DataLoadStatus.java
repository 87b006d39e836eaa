package io.granary.contracts.dataload;

import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.Validated;

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
                             Instant startedAt, Instant finishedAt, List<FileError> errors, Instant updatedAt)
        implements Validated<DataLoadStatus> {

    public DataLoadStatus {
        errors = errors == null ? List.of() : List.copyOf(errors);
    }

    @Override
    public DataLoadStatus validate() {
        Check.required("id", id);
        Check.required("phase", phase);
        return this;
    }

    /** Accepted, waiting its turn. */
    public static DataLoadStatus pending(String id, String dataset, Instant now) {
        return new DataLoadStatus(id, dataset, DataLoadPhase.PENDING, 0, 0, 0, 0, 0, null, null, null, List.of(), now);
    }

    /** A request refused before it became a load (invalid, or an unknown dataset), and why. */
    public static DataLoadStatus refused(String id, String dataset, String reason, Instant now) {
        return new DataLoadStatus(id, dataset, DataLoadPhase.FAILED, 0, 0, 0, 0, 0, 0L, null, now,
                List.of(new FileError("", reason)), now);
    }

    /** The same progress, ended in {@code phase} (a cancel before the load ran). */
    public DataLoadStatus ended(DataLoadPhase phase, Instant now) {
        return new DataLoadStatus(id, dataset, phase, filesDone, filesTotal, bytesDone, bytesTotal, 0, null,
                startedAt, now, errors, now);
    }
}
