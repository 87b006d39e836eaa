package io.granary.kit.sigv4;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Percent-decoding of what arrived and SigV4's percent-encoding of what is signed. Paths and query values are
 * decoded and encoded again, as S3 does, so a client's choice of escaping for unreserved characters does not matter.
 */
final class UriEncoding {

    /** A decoded query parameter; a parameter without '=' has the value "". */
    record Param(String name, String value) {
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private UriEncoding() {
    }

    /** The canonical URI: decoded once, then every byte but the unreserved ones and '/' percent-encoded. */
    static String canonicalPath(String rawPath) {
        return rawPath.isEmpty() ? "/" : encode(decode(rawPath, false), true);
    }

    /** Decoded parameters in arrival order. '+' means a space, as S3 servers read it. */
    static List<Param> queryParameters(String rawQuery) {
        List<Param> params = new ArrayList<>();
        if (rawQuery == null) {
            return params;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            params.add(new Param(new String(decode(name, true), StandardCharsets.UTF_8),
                    new String(decode(value, true), StandardCharsets.UTF_8)));
        }
        return params;
    }

    /** SigV4's URI encoding of a string's UTF-8 bytes: only A-Z a-z 0-9 - _ . ~ stay as they are. */
    static String encode(String value) {
        return encode(value.getBytes(StandardCharsets.UTF_8), false);
    }

    private static String encode(byte[] bytes, boolean keepSlash) {
        StringBuilder out = new StringBuilder(bytes.length + 16);
        for (byte b : bytes) {
            char c = (char) (b & 0xff);
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
                    || c == '-' || c == '_' || c == '.' || c == '~' || c == '/' && keepSlash) {
                out.append(c);
            } else {
                out.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
            }
        }
        return out.toString();
    }

    /** A '%' not followed by two hex digits is taken literally; anything unescaped stands for its UTF-8 bytes. */
    private static byte[] decode(String raw, boolean plusIsSpace) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            int high = i + 2 < raw.length() ? hexValue(raw.charAt(i + 1)) : -1;
            int low = high >= 0 ? hexValue(raw.charAt(i + 2)) : -1;
            if (c == '%' && low >= 0) {
                out.write(high << 4 | low);
                i += 2;
            } else if (c == '+' && plusIsSpace) {
                out.write(' ');
            } else if (c < 0x80) {
                out.write(c);
            } else {
                int end = Character.isHighSurrogate(c) && i + 1 < raw.length() ? i + 2 : i + 1;
                out.writeBytes(raw.substring(i, end).getBytes(StandardCharsets.UTF_8));
                i = end - 1;
            }
        }
        return out.toByteArray();
    }

    private static int hexValue(char c) {
        return c < 0x80 ? Character.digit(c, 16) : -1;
    }
}
