package io.granary.operator.runtime;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

import java.util.List;

/**
 * @param statefulSet the workers' StatefulSet in this namespace; default {@code granary-block}
 * @param container   its block-service container; default {@code block-service}
 * @param replicas    how many workers
 * @param levels      the workers' cache levels, fastest first; empty: as the StatefulSet has them
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CacheRuntimeSpec(
        @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$") String statefulSet,
        @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$") String container,
        @Required @Min(0) @Max(1000) Integer replicas,
        @Size(max = 3) List<CacheLevel> levels) {

    public static final String DEFAULT_STATEFUL_SET = "granary-block";
    public static final String DEFAULT_CONTAINER = "block-service";

    public CacheRuntimeSpec {
        levels = levels == null ? List.of() : List.copyOf(levels);
    }

    public String statefulSetOrDefault() {
        return statefulSet == null ? DEFAULT_STATEFUL_SET : statefulSet;
    }

    public String containerOrDefault() {
        return container == null ? DEFAULT_CONTAINER : container;
    }
}
