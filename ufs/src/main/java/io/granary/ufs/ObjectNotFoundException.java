package io.granary.ufs;

/** The object does not exist (or the path names a directory, which is not an object). */
public class ObjectNotFoundException extends UnderStoreException {

    public ObjectNotFoundException(String message) {
        super(message);
    }
}
