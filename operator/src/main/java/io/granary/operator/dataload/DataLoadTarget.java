package io.granary.operator.dataload;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

/**
 * @param path     inside the dataset; {@code /} for all of it
 * @param replicas cache copies of each block; unset: the dataset's own
 */
@JsonInclude(JsonInclude.Include.NON_NULL)  // an unset field is left out, as kubectl shows it
public record DataLoadTarget(@Required String path, @Min(1) @Max(16) Integer replicas) {
}
