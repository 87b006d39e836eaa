package io.granary.gateway.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The JCA primitives SigV4 needs where the SDK signer has no public entry point: the signing key (for chunk
 * signatures and the canonical requests the SDK cannot reproduce) and HMAC-SHA256 over a string to sign.
 */
final class SigV4Crypto {

    static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    private static final HexFormat HEX = HexFormat.of();

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
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JRE", e);
        }
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    }

    static String sha256Hex(String data) {
        return hex(sha256().digest(data.getBytes(StandardCharsets.UTF_8)));
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
