package io.granary.block.fill;

/** The file version exists but has no block at this index (it is shorter). */
public class NoSuchBlockException extends RuntimeException {

    public NoSuchBlockException(String message) {
        super(message);
    }
}
