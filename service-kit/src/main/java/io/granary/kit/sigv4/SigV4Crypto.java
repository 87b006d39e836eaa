package io.granary.kit.sigv4;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The JCA primitives of SigV4: the signing key, HMAC-SHA256 over a string to sign, SHA-256. A Mac and a digest per
 * thread: looking one up in the providers costs more than the hash of a canonical request.
 */
final class SigV4Crypto {

    static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    private static final HexFormat HEX = HexFormat.of();
    private static final ThreadLocal<Mac> HMAC = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JRE", e);
        }
    });
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(SigV4Crypto::sha256);

    private SigV4Crypto() {
    }

    /** kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), "s3"), "aws4_request"). */
    static byte[] signingKey(String secretKey, String date, String region) {
        byte[] key = ("AWS4" + secretKey).getBytes(StandardCharsets.UTF_8);
        for (String part : new String[] {date, region, "s3", "aws4_request"}) {
            key = hmac(key, part);
        }
        return key;
    }

    static byte[] hmac(byte[] key, String data) {
        Mac mac = HMAC.get();
        try {
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("any key is a valid HmacSHA256 key", e);
        }
        return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }

    static String sha256Hex(String data) {
        return hex(SHA256.get().digest(data.getBytes(StandardCharsets.UTF_8)));  // digest() resets it
    }

    static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    /** Constant-time, so that a mismatch does not tell how many leading characters were right. */
    static boolean sameSignature(String expected, String claimed) {
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                claimed.getBytes(StandardCharsets.US_ASCII));
    }
}
