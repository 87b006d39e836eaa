package io.granary.ufs;

import java.time.Instant;
import java.util.Map;

/**
 * What an under-store knows about one object.
 *
 * @param path  key relative to the mount root, no leading slash
 * @param size  bytes
 * @param mtime last modification
 * @param etag     changes whenever the object changes (block ids are derived from it); never quoted
 * @param metadata the object's standard headers and user metadata ({@link ObjectMetadata}); empty where the
 *                 store does not say (a listing)
 */
public record ObjectInfo(String path, long size, Instant mtime, String etag, Map<String, String> metadata) {

    public ObjectInfo {
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }

    /** An object listed: a listing carries no metadata. */
    public ObjectInfo(String path, long size, Instant mtime, String etag) {
        this(path, size, mtime, etag, Map.of());
    }
}
