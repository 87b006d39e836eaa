package io.granary.contracts.dataload;

/**
 * The REST paths of the preload-service.
 *
 * <pre>
 * POST   /api/v1/dataloads              a {@link DataLoadSpec}, answered 202 with its id and {@link DataLoadStatus};
 *                                       with {@link #IDEMPOTENCY_HEADER}, the same key twice starts one load
 * GET    /api/v1/dataloads[/{id}]       status: phase, files and bytes done of total, rate, errors
 * GET    /api/v1/dataloads/{id}/events  the same as server-sent events until the load ends
 * DELETE /api/v1/dataloads/{id}         cancel
 * </pre>
 *
 * While the preload-service cannot be reached (it restarts), a gateway answers {@code GET /api/v1/dataloads/{id}}
 * with the last status the load published, marked {@link #STALE_HEADER}.
 */
public final class DataLoadApi {

    public static final String DATALOADS = "/api/v1/dataloads";

    /** Below {@link #DATALOADS}. */
    public static final String DATALOAD = "{id}";
    public static final String EVENTS = "{id}/events";
    /**
     * A key the caller picks for a POST, so it may send the POST again when its connection broke before the answer
     * (as SDKs do with idempotency tokens): the same caller's same key starts one load, answered again as it is.
     */
    public static final String IDEMPOTENCY_HEADER = "Idempotency-Key";
    /** On a status answered from the last one published, not by the preload-service: the value is its time. */
    public static final String STALE_HEADER = "X-Granary-Stale";

    private DataLoadApi() {
    }
}
