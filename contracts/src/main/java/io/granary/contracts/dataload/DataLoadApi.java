package io.granary.contracts.dataload;

/**
 * The REST paths of the preload-service.
 *
 * <pre>
 * POST   /api/v1/dataloads              a {@link DataLoadSpec}, answered 202 with its id and {@link DataLoadStatus}
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
    /** On a status answered from the last one published, not by the preload-service: the value is its time. */
    public static final String STALE_HEADER = "X-Granary-Stale";

    private DataLoadApi() {
    }
}
