package io.granary.operator.runtime;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * One cache level of every worker, as the block-service's {@code granary.block.levels[i]} has it.
 *
 * @param path where its blocks live in the worker's container: a volume of the StatefulSet must be mounted there
 * @param high the share of the quota at which eviction starts; default 0.95
 * @param low  the share it evicts down to; default 0.7
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CacheLevel(
        @Required @Pattern("^(MEM|SSD|HDD)$") String medium,
        @Required @Pattern("^/.*") String path,
        @Required @Pattern("^[0-9]+(B|KiB|MiB|GiB|TiB)?$") String quota,
        @Min(value = 0, inclusive = false) @Max(1) Double high,
        @Min(value = 0, inclusive = false) @Max(1) Double low) {
}
