package io.granary.kit.blockfile;



/**
 * A block file was written to while it was sent: the bytes already out may be damaged, so the response is broken
 * off (the client asks again, and the worker checks the file against its checksum) rather than finished.
 */
public final class BlockFileChanged extends SendBroken {

    BlockFileChanged(OpenBlockFile file) {
        super("block file " + file.path() + " was written to while it was sent", null);
    }
}
