package io.granary.gateway.write;

/** What a client is told after a write: the under-store's etag of the object (or part), unquoted. */
public record UploadedObject(String etag) {
}
