package io.granary.ufs;

/** Any failure of an under-store. Unchecked: callers map the subclasses to HTTP statuses, not recover locally. */
public class UnderStoreException extends RuntimeException {

    public UnderStoreException(String message) {
        super(message);
    }

    public UnderStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
