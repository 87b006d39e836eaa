package io.granary.operator.dataset;

import io.fabric8.kubernetes.api.model.Secret;

import java.util.Arrays;

/**
 * Which namespaces' Datasets may name a store credentials Secret: the ones its annotation
 * {@code granary.io/namespaces} lists ({@code ml,team-a}, or {@code *} for all). Granary reads every mount with
 * what its services mount, on the cluster credential's authority, so without this anyone who may make a Dataset in
 * any namespace could read another team's bucket by naming its Secret.
 */
public final class StoreCredentials {

    public static final String NAMESPACES_ANNOTATION = "granary.io/namespaces";

    private StoreCredentials() {
    }

    public static boolean allow(Secret secret, String namespace) {
        String listed = secret.getMetadata().getAnnotations() == null ? null
                : secret.getMetadata().getAnnotations().get(NAMESPACES_ANNOTATION);
        return listed != null && Arrays.stream(listed.split(",")).map(String::strip)
                .anyMatch(name -> name.equals("*") || name.equals(namespace));
    }
}
