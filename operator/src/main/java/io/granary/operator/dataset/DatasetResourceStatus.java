package io.granary.operator.dataset;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.granary.operator.status.Condition;

import java.util.List;

/**
 * What is known of a Dataset, from Granary.
 *
 * @param phase                 {@code Pending} (being listed), {@code Bound}, {@code Failed}; {@code NotReady} when
 *                              the operator could not make or reach its Granary dataset (the Ready condition says
 *                              why)
 * @param granaryName           the Granary dataset (and S3 bucket) it stands for
 * @param size                  {@code sizeBytes} for people, e.g. {@code 1.5GiB}
 * @param cached                {@code cachedPercentage} for people, e.g. {@code 51%}
 * @param persistentVolumeClaim the claim a pod names to mount it
 */
@JsonInclude(JsonInclude.Include.NON_NULL)  // an unset field is left out, as kubectl shows it
public record DatasetResourceStatus(String phase, String granaryName, Long files, Long sizeBytes, String size,
                                    Long cachedBytes, Double cachedPercentage, String cached, Double hitRatio,
                                    String persistentVolumeClaim, String persistentVolume, Boolean adopted,
                                    List<Condition> conditions, Long observedGeneration) {

    public static final String NOT_READY = "NotReady";

    public DatasetResourceStatus {
        conditions = conditions == null ? List.of() : List.copyOf(conditions);
    }

    /** NotReady with these conditions, keeping what was last known of the dataset ({@code known} may be null). */
    public static DatasetResourceStatus notReady(DatasetResourceStatus known, String granaryName,
                                                 List<Condition> conditions, Long generation) {
        return known == null
                ? new DatasetResourceStatus(NOT_READY, granaryName, null, null, null, null, null, null, null, null,
                null, null, conditions, generation)
                : new DatasetResourceStatus(NOT_READY, granaryName == null ? known.granaryName : granaryName,
                known.files, known.sizeBytes, known.size, known.cachedBytes, known.cachedPercentage, known.cached,
                known.hitRatio, known.persistentVolumeClaim, known.persistentVolume, known.adopted, conditions,
                generation);
    }
}
