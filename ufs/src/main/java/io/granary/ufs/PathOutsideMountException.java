package io.granary.ufs;

/** A path tried to leave the mount root: a {@code ..} segment or a symlink that points outside. */
public class PathOutsideMountException extends UnderStoreException {

    public PathOutsideMountException(String message) {
        super(message);
    }
}
