package io.granary.kit.security;

import io.granary.kit.rest.ForbiddenProblem;

import java.util.Set;

/**
 * Who made a request, once their credential checked out.
 *
 * @param name     the identity's name, as audit records it
 * @param role     what it may do
 * @param datasets the datasets it may touch; empty: all of them
 */
public record Caller(String name, Role role, Set<String> datasets) {

    /** The key of the caller in a request's {@code RoutingContext}. */
    public static final String CONTEXT_KEY = "granary.caller";

    public Caller {
        datasets = Set.copyOf(datasets);
    }

    public static Caller cluster() {
        return new Caller("cluster", Role.CLUSTER, Set.of());
    }

    /** Every dataset is this caller's, including ones not created yet (dataset-wide operations need this). */
    public boolean unscoped() {
        return datasets.isEmpty();
    }

    public boolean mayTouch(String dataset) {
        return datasets.isEmpty() || datasets.contains(dataset);
    }

    /**
     * For a dataset named in a request's body, which the access rules cannot see.
     *
     * @throws ForbiddenProblem naming {@code dataset} when this caller may not touch it (null names none)
     */
    public void checkMayTouch(String dataset) {
        if (dataset != null && !mayTouch(dataset)) {
            throw new ForbiddenProblem("dataset", "identity '" + name + "' may not touch dataset '" + dataset + "'");
        }
    }

    public boolean may(Role needed, String dataset) {
        return role.allows(needed) && (dataset == null ? unscoped() : mayTouch(dataset));
    }
}
