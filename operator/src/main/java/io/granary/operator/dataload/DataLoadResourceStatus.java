package io.granary.operator.dataload;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.granary.contracts.dataload.FileError;
import io.granary.operator.status.Condition;

import java.util.List;

/**
 * A DataLoad's progress, from Granary's {@code granary.preload.status} events.
 *
 * @param phase       Granary's ({@code Pending}, {@code Loading}, {@code Complete}, {@code Failed},
 *                    {@code Cancelled}), or {@code NotReady} before it could start (the Ready condition says why)
 * @param loadId      Granary's id of the load
 * @param progress    files done of total, for people
 * @param failedFiles how many files failed; {@code errors} has the first ones
 * @param runs        runs started; a scheduled load's grows with each
 */
@JsonInclude(JsonInclude.Include.NON_NULL)  // an unset field is left out, as kubectl shows it
public record DataLoadResourceStatus(String phase, String loadId, Long filesDone, Long filesTotal, Long bytesDone,
                                     Long bytesTotal, String progress, Integer failedFiles, List<FileError> errors,
                                     String startTime, String endTime, Integer runs, List<Condition> conditions,
                                     Long observedGeneration) {

    public static final String NOT_READY = "NotReady";

    public DataLoadResourceStatus {
        errors = errors == null ? List.of() : List.copyOf(errors);
        conditions = conditions == null ? List.of() : List.copyOf(conditions);
    }
}
