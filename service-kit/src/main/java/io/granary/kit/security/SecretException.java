package io.granary.kit.security;

/** A secret that cannot be used: its name, its file, or a key it lacks. The message never holds a value. */
public class SecretException extends RuntimeException {

    public SecretException(String message) {
        super(message);
    }

    public SecretException(String message, Throwable cause) {
        super(message, cause);
    }
}
