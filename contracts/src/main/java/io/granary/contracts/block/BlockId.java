package io.granary.contracts.block;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * A block's name, derived and never allocated: 128 bits of SHA-256 over (dataset, path, etag), then the block's
 * index in the file. A rewritten object has a new etag and so new block ids: a stale block is never served, only
 * aged out. The text form {@code <32 hex>-<index>} is also the block's file name in a level directory.
 */
public record BlockId(String file, int index) {

    private static final Pattern FILE = Pattern.compile("[0-9a-f]{32}");

    public BlockId {
        if (file == null || !FILE.matcher(file).matches()) {
            throw new IllegalArgumentException("block file hash must be 32 lower-case hex digits");
        }
        if (index < 0) {
            throw new IllegalArgumentException("block index must not be negative: " + index);
        }
    }

    public static BlockId of(String dataset, String path, String etag, int index) {
        return new BlockId(fileHash(dataset, path, etag), index);
    }

    /** The hash shared by all blocks of one version of one file. */
    public static String fileHash(String dataset, String path, String etag) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
        // NUL cannot occur in any of the three, so the fields cannot run into each other.
        sha256.update((dataset + '\0' + path + '\0' + etag).getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(sha256.digest(), 0, 16);
    }

    /** @throws IllegalArgumentException when the text is not a block id */
    public static BlockId parse(String text) {
        int dash = text == null ? -1 : text.indexOf('-');
        if (dash != 32 || text.length() > 43) {
            throw new IllegalArgumentException("not a block id: " + text);
        }
        try {
            return new BlockId(text.substring(0, dash), Integer.parseInt(text.substring(dash + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a block id: " + text);
        }
    }

    @Override
    public String toString() {
        return file + '-' + index;
    }
}
