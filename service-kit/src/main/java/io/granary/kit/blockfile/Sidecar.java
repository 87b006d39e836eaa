package io.granary.kit.blockfile;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The sidecar of a block file ({@code <blockId>.meta} beside it, a properties file): its CRC32C, length, and which
 * file version it belongs to. Plain text so an operator (or a short-circuit reader) can check a block without our
 * code.
 */
public record Sidecar(int crc32c, long length, String path, String etag) {

    public void write(Path file) throws IOException {
        Properties properties = new Properties();
        properties.setProperty("crc32c", Integer.toHexString(crc32c));
        properties.setProperty("length", Long.toString(length));
        properties.setProperty("path", path);
        properties.setProperty("etag", etag);
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            properties.store(out, null);
        }
    }

    /** @throws IOException when the sidecar is missing or unreadable: the block cannot be trusted */
    public static Sidecar read(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        try {
            return new Sidecar(Integer.parseUnsignedInt(properties.getProperty("crc32c"), 16),
                    Long.parseLong(properties.getProperty("length")),
                    require(properties, "path"), require(properties, "etag"));
        } catch (RuntimeException e) {
            throw new IOException("damaged block sidecar " + file + ": " + e.getMessage(), e);
        }
    }

    private static String require(Properties properties, String key) {
        String value = properties.getProperty(key);
        if (value == null) {
            throw new IllegalArgumentException("no " + key);
        }
        return value;
    }
}
