package io.granary.contracts.dataload;

/** A file a DataLoad could not load, and why (never a secret). */
public record FileError(String path, String reason) {
}
