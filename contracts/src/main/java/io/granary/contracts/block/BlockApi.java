package io.granary.contracts.block;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * The HTTP face of a cache worker, shared by the gateway and the preload-service that call it.
 *
 * <pre>
 * GET    /blocks/{dataset}/{index}?path=P&amp;etag=E   a block, or a byte range of it with a Range header (206)
 * HEAD   /blocks/{dataset}/{index}?path=P&amp;etag=E   the head a GET would answer, the block filled first on a miss
 * PUT    /blocks/{dataset}/{index}?path=P&amp;etag=E   write-through: the body is the whole block
 * POST   /blocks/load                             a {@link BlockFillRequest}, answered with a {@link BlockFillResult}
 * POST   /blocks/{dataset}/reads                  a {@link LocalReads} report of short-circuit reads (204)
 * POST   /blocks/{dataset}/held                   a list of block ids, answered with the length of each held here
 * PUT    /worker/plans/{id}                       a {@code WorkerPlan}: this worker's part of an epoch plan (GET: progress)
 * POST   /worker/drain                            leave without losing the cache (GET: how far; DELETE: rejoin)
 * DELETE /blocks/{dataset}?prefix=P               evict the dataset's blocks (under a path prefix)
 * GET    /blocks/stats                            levels, counters
 * </pre>
 */
public final class BlockApi {

    public static final String ROOT = "/blocks";
    /** Where a batch of blocks is asked to be filled: a {@link BlockFillRequest}. */
    public static final String FILL = ROOT + "/fill";
    /** Where a worker keeps its parts of epoch plans: outside {@link #ROOT}, as {@link #DRAIN}. */
    public static final String PLANS = "/worker/plans";
    /** A worker's drain: outside {@link #ROOT}, where a dataset called {@code drain} would meet it. */
    public static final String DRAIN = "/worker/drain";
    /** How a GET was served: {@link #HIT}, {@link #MISS} (filled now) or {@link #BYPASS} (read through, not stored). */
    public static final String CACHE_HEADER = "X-Granary-Cache";
    /** The level (MEM, SSD, HDD) the block was served from. */
    public static final String LEVEL_HEADER = "X-Granary-Level";
    /** The whole block's length, whatever range was asked for. */
    public static final String BLOCK_LENGTH_HEADER = "X-Granary-Block-Length";
    /** On a GET: answer 404 rather than fill a block this worker does not hold (another worker is asking). */
    /**
     * On a hand-over's answer: the CRC32C of the block as its giver stored it (unsigned decimal); the taker checks
     * what it received against it before it keeps the block, so a copy damaged on the giver's disk or on the way is
     * never stored as whole elsewhere.
     */
    public static final String CRC32C_HEADER = "X-Granary-Crc32c";
    public static final String HELD_ONLY_HEADER = "X-Granary-Held-Only";
    /**
     * On a HEAD from a reader on the worker's node: on a miss, answer as soon as the fill has its first bytes, naming
     * the block's temporary file ({@link #FILLING_HEADER}), which the reader follows as it grows.
     */
    public static final String FOLLOW_HEADER = "X-Granary-Follow";
    /** The name of the temporary file a block is being filled in, in its level's dataset directory. */
    public static final String FILLING_HEADER = "X-Granary-Filling";
    public static final String HIT = "hit";
    public static final String MISS = "miss";
    public static final String BYPASS = "bypass";
    /** Block ids one {@code held} question may name. */
    public static final int MAX_HELD_QUERY = 10_000;

    private BlockApi() {
    }

    /** Where a gateway reports the reads it served from this worker's files. */
    public static String readsPath(String dataset) {
        return ROOT + '/' + dataset + "/reads";
    }

    /** Where the metadata-service asks which of a dataset's blocks a worker holds. */
    public static String heldPath(String dataset) {
        return ROOT + '/' + dataset + "/held";
    }

    /** Where this worker's part of plan {@code id} lives. */
    public static String planPath(String id) {
        return PLANS + '/' + encode(id);
    }

    /** The path of one block, without its query. */
    public static String blockPath(String dataset, int index) {
        return ROOT + '/' + dataset + '/' + index;
    }

    /** The path and query of block {@code index} of a file's version, as GET, HEAD and PUT take it. */
    public static String blockUri(String dataset, int index, String path, String etag) {
        return blockPath(dataset, index) + "?path=" + encode(path) + "&etag=" + encode(etag);
    }

    /** As {@link #blockUri(String, int, String, String)}, with the version's size: a miss reserves only its block. */
    public static String blockUri(String dataset, int index, String path, String etag, long size) {
        return blockUri(dataset, index, path, etag) + "&size=" + size;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
