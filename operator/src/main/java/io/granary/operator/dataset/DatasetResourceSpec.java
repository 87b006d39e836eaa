package io.granary.operator.dataset;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

import java.util.List;
import java.util.Map;

/**
 * What a Dataset asks for: the fields of Granary's dataset spec, less its name (the resource's) and bucket settings
 * (an S3 concern, set through S3). A Granary dataset cannot be changed once made, so the schema refuses a change of
 * the spec, as Kubernetes refuses a change of a bound PVC's.
 *
 * @param blockSize  e.g. {@code 16MiB}; default 16MiB
 * @param replicas   cache copies of each block; default 1
 * @param cacheShare the share of every worker's cache kept for this dataset (its quota against others)
 */
@ValidationRule(value = "self == oldSelf", message = "a Dataset's spec cannot change (Granary datasets are made "
        + "once): delete the Dataset and apply it again")
@JsonInclude(JsonInclude.Include.NON_NULL)  // an unset field is left out, as kubectl shows it
public record DatasetResourceSpec(
        @Required @Size(min = 1, max = 32) List<DatasetMount> mounts,
        @Pattern("^[0-9]+(B|KiB|MiB|GiB)?$") String blockSize,
        @Min(1) @Max(16) Integer replicas,
        Map<String, String> nodeSelector,
        @Pattern("^([0-9]+[smhd]|P.+)$") String metadataTtl,
        Boolean readOnly,
        @Min(value = 0, inclusive = false) @Max(1) Double cacheShare) {

    public DatasetResourceSpec {
        mounts = mounts == null ? List.of() : List.copyOf(mounts);
        nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
    }
}
