package io.granary.ufs;

import java.time.Instant;

/**
 * What an under-store knows about one object.
 *
 * @param path  key relative to the mount root, no leading slash
 * @param size  bytes
 * @param mtime last modification
 * @param etag  changes whenever the object changes (block ids are derived from it); never quoted
 */
public record ObjectInfo(String path, long size, Instant mtime, String etag) {
}
