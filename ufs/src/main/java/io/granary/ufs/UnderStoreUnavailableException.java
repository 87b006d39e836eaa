package io.granary.ufs;

/** The store could not be reached (connection refused, timeout, reset): worth retrying later. */
public class UnderStoreUnavailableException extends UnderStoreException {

    public UnderStoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
