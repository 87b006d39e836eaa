package io.granary.contracts.dataset;

/**
 * The REST paths of the metadata-service, shared by its resources and the one client every other service uses
 * (constants, so both sides can name them in {@code @Path}).
 *
 * <pre>
 * POST   /api/v1/datasets                           create (201), 409 if it exists
 * GET    /api/v1/datasets[/{name}]                  spec and status
 * PUT    /api/v1/datasets/{name}/bucket             replace its S3 bucket settings (ACL, CORS, public access block)
 * DELETE /api/v1/datasets/{name}                    forget it, drop its cache
 * POST   /api/v1/datasets/{name}/sync               re-read its metadata from the under-store (202)
 * GET    /api/v1/datasets/{name}/files?prefix=&amp;delimiter=&amp;cursor=&amp;limit=   a page of the listing
 * GET    /api/v1/datasets/{name}/files/{path}       one file's stat
 * POST   /api/v1/datasets/{name}/files/{path}/refresh   re-read one file after a write (404 once it is gone)
 * GET    /api/v1/datasets/{name}/nodes              cached bytes per node
 * DELETE /api/v1/datasets/{name}/cache?path=        free the cache under a path (202)
 * GET    /api/v1/workers                            the workers and their levels
 * </pre>
 */
public final class MetadataApi {

    public static final String DATASETS = "/api/v1/datasets";
    public static final String WORKERS = "/api/v1/workers";

    /** Below {@link #DATASETS}. */
    public static final String DATASET = "{name}";
    public static final String SYNC = "{name}/sync";
    public static final String BUCKET = "{name}/bucket";
    public static final String FILES = "{name}/files";
    public static final String FILE = "{name}/files/{path: .+}";
    public static final String REFRESH = "{name}/files/{path: .+}/refresh";
    public static final String NODES = "{name}/nodes";
    public static final String CACHE = "{name}/cache";

    private MetadataApi() {
    }
}
