package io.granary.operator.runtime;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.granary.operator.status.Condition;

import java.util.List;

/**
 * @param phase    {@code Ready}, {@code Draining} (workers leaving hand their blocks over first) or {@code NotReady}
 * @param replicas the StatefulSet's replicas now
 * @param draining the workers being drained before a scale-in
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CacheRuntimeStatus(String phase, Integer replicas, List<String> draining, List<Condition> conditions,
                                 Long observedGeneration) {

    public CacheRuntimeStatus {
        draining = draining == null ? List.of() : List.copyOf(draining);
        conditions = conditions == null ? List.of() : List.copyOf(conditions);
    }
}
