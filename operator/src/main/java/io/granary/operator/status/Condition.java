package io.granary.operator.status;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One of a resource's conditions, as Kubernetes writes them ({@code metav1.Condition}): {@code Ready} says whether
 * Granary serves what the resource asks; {@code reason} is a CamelCase word a tool can match, {@code message} says
 * what to do about it, naming the field at fault.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)  // an unset field is left out, as kubectl shows it
public record Condition(String type, String status, String reason, String message, String lastTransitionTime,
                        Long observedGeneration) {

    public static final String READY = "Ready";
}
