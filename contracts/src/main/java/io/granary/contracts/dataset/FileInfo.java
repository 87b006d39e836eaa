package io.granary.contracts.dataset;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.Map;

/**
 * One file of a dataset, from the metadata cache.
 *
 * @param path     normalised path inside the dataset, no leading '/'
 * @param etag     the under-store's version tag, unquoted; block ids derive from it
 * @param metadata the object's standard headers (content-type...) and user metadata (x-amz-meta-...), by
 *                 lower-case name, as the under-store last said on a stat; empty when it never did (a listing)
 */
public record FileInfo(String path, long size, Instant mtime, String etag,
                       @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> metadata) {

    public FileInfo {
        metadata = metadata == null || metadata.isEmpty() ? Map.of() : Map.copyOf(metadata);
    }

    /** A file known from a listing, which carries no metadata. */
    public FileInfo(String path, long size, Instant mtime, String etag) {
        this(path, size, mtime, etag, Map.of());
    }

    /**
     * The same version of the same object (the etag names it), whatever is known of its metadata, and whether the
     * mtime came from a stat (seconds, on S3) or a listing (milliseconds).
     */
    public boolean sameVersion(FileInfo other) {
        return path.equals(other.path) && size == other.size && etag.equals(other.etag);
    }
}
