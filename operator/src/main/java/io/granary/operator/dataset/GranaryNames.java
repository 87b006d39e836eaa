package io.granary.operator.dataset;

import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.ValidationException;

/**
 * How a namespaced Dataset maps to Granary's one space of dataset (bucket) names: {@code <namespace>-<name>}, so two
 * teams' {@code imagenet} are {@code team-a-imagenet} and {@code team-b-imagenet}. Two resources whose names join
 * to the same string ({@code a-b/c} and {@code a/b-c}) are told apart by the operator: the older keeps it.
 */
public final class GranaryNames {

    private GranaryNames() {
    }

    /** @throws ValidationException naming {@code metadata.name} when the joined name is no Granary name */
    public static String of(String namespace, String name) {
        String joined = namespace + "-" + name;
        try {
            return Check.datasetName("metadata.name", joined);
        } catch (ValidationException e) {
            throw new ValidationException("metadata.name", "'" + namespace + "/" + name + "' maps to the Granary "
                    + "dataset '" + joined + "', which is not a DNS-1123 label of at most 63 characters (no dots): "
                    + "choose a shorter name without dots");
        }
    }
}
