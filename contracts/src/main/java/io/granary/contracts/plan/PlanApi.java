package io.granary.contracts.plan;

/**
 * The REST paths of epoch plans, on the preload-service (and through the gateway).
 *
 * <pre>
 * POST   /api/v1/plans        an {@link EpochPlan}, published on {@code granary.epoch.plans}; 202 with its id
 * GET    /api/v1/plans[/{id}] {@link PlanStatus}: the reader's position, what was fetched ahead
 * DELETE /api/v1/plans/{id}   stop its prefetch
 * </pre>
 */
public final class PlanApi {

    public static final String PLANS = "/api/v1/plans";
    /** Below {@link #PLANS}. */
    public static final String PLAN = "{id}";

    private PlanApi() {
    }
}
