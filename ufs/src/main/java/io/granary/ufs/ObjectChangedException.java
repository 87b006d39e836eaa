package io.granary.ufs;

/** The object exists, but not in the version (etag) asked for: it was rewritten since its metadata was read. */
public class ObjectChangedException extends UnderStoreException {

    public ObjectChangedException(String message) {
        super(message);
    }
}
