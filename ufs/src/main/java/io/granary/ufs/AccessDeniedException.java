package io.granary.ufs;

/** The store refused the credentials or the operation. The message names the mount, never a secret. */
public class AccessDeniedException extends UnderStoreException {

    public AccessDeniedException(String message, Throwable cause) {
        super(message, cause);
    }
}
