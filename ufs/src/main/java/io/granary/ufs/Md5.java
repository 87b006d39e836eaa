package io.granary.ufs;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** MD5, as S3 uses it for ETags and parts: a fresh digest, and one's value in lower-case hex. */
final class Md5 {

    private Md5() {
    }

    static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has MD5", e);
        }
    }

    /** The digest's value, which resets it. */
    static String hex(MessageDigest md5) {
        return HexFormat.of().formatHex(md5.digest());
    }
}
