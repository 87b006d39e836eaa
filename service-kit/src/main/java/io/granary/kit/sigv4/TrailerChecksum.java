package io.granary.kit.sigv4;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/** The checksum a trailing x-amz-checksum-* header carries, computed over the body as it is decoded. */
final class TrailerChecksum {

    private final String algorithm;
    private final Consumer<byte[]> update;
    private final Supplier<byte[]> value;

    private TrailerChecksum(String algorithm, Consumer<byte[]> update, Supplier<byte[]> value) {
        this.algorithm = algorithm;
        this.update = update;
        this.value = value;
    }

    /**
     * The checksum for a trailer name, or null when there is none to check. x-amz-checksum-crc64nvme is not
     * checked: the JDK has no CRC-64/NVME and the SDK's needs the optional CRT library; such a body is still
     * covered by its chunk signatures or by TLS, so we do not hand-roll the CRC.
     */
    static TrailerChecksum forTrailer(String name) {
        return switch (name) {
            case "x-amz-checksum-crc32" -> crc("CRC32", new CRC32());
            case "x-amz-checksum-crc32c" -> crc("CRC32C", new CRC32C());
            case "x-amz-checksum-sha1" -> digest("SHA1", "SHA-1");
            case "x-amz-checksum-sha256" -> digest("SHA256", "SHA-256");
            default -> null;
        };
    }

    void update(byte[] bytes) {
        update.accept(bytes);
    }

    /** Whether the base64 value the client sent is the checksum of everything passed to update. */
    boolean matches(String base64) {
        return Base64.getEncoder().encodeToString(value.get()).equals(base64);
    }

    String algorithm() {
        return algorithm;
    }

    private static TrailerChecksum crc(String algorithm, Checksum crc) {
        return new TrailerChecksum(algorithm, b -> crc.update(b, 0, b.length),
                () -> ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    }

    private static TrailerChecksum digest(String algorithm, String jcaName) {
        try {
            MessageDigest digest = MessageDigest.getInstance(jcaName);
            return new TrailerChecksum(algorithm, digest::update, digest::digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(jcaName + " is part of every JRE", e);
        }
    }
}
