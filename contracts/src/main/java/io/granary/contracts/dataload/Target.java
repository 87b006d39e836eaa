package io.granary.contracts.dataload;

/**
 * A directory or file to load.
 *
 * @param path     inside the dataset; {@code /} or empty for all of it
 * @param replicas cache copies to make of each block; null: the dataset's own
 */
public record Target(String path, Integer replicas) {
}
