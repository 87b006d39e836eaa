package io.granary.kit.sigv4;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The expected signature, computed with JCA from the canonical request and the string to sign as SigV4 defines them,
 * built from exactly the headers the client signed and the payload hash it declared. It runs on every request, so
 * it builds each string once, in one buffer. The AWS SDK's own signer is its reference in the tests.
 */
final class CanonicalRequest {

    private CanonicalRequest() {
    }

    static String signature(SigningInput input, byte[] signingKey) {
        StringBuilder canonical = new StringBuilder(512)
                .append(input.method()).append('\n')
                .append(input.path()).append('\n');
        appendQuery(canonical, input.query());
        canonical.append('\n');
        appendHeaders(canonical, input.headers());
        canonical.append('\n');
        String separator = "";
        for (String name : input.headers().keySet()) {
            canonical.append(separator).append(name);
            separator = ";";
        }
        canonical.append('\n').append(input.payloadHash());
        String stringToSign = Claim.ALGORITHM + '\n' + input.timestamp() + '\n' + input.scope() + '\n'
                + SigV4Crypto.sha256Hex(canonical.toString());
        return SigV4Crypto.hex(SigV4Crypto.hmac(signingKey, stringToSign));
    }

    /** "name:value\n" per header; several values are joined with ',', each trimmed with inner whitespace collapsed. */
    static String headers(SortedMap<String, List<String>> headers) {
        StringBuilder out = new StringBuilder();
        appendHeaders(out, headers);
        return out.toString();
    }

    private static void appendHeaders(StringBuilder out, SortedMap<String, List<String>> headers) {
        headers.forEach((name, values) -> {
            out.append(name).append(':');
            for (int i = 0; i < values.size(); i++) {
                out.append(i == 0 ? "" : ",").append(trimAll(values.get(i)));
            }
            out.append('\n');
        });
    }

    /** Encoded names sorted, then encoded values per name; a parameter without a name is left out, as the SDK does. */
    private static void appendQuery(StringBuilder out, List<UriEncoding.Param> params) {
        if (params.isEmpty()) {
            return;  // a plain GET of an object
        }
        SortedMap<String, List<String>> sorted = new TreeMap<>();
        for (UriEncoding.Param p : params) {
            if (!p.name().isEmpty()) {
                sorted.computeIfAbsent(UriEncoding.encode(p.name()), n -> new ArrayList<>())
                        .add(UriEncoding.encode(p.value()));
            }
        }
        String separator = "";
        for (Map.Entry<String, List<String>> e : sorted.entrySet()) {
            Collections.sort(e.getValue());
            for (String value : e.getValue()) {
                out.append(separator).append(e.getKey()).append('=').append(value);
                separator = "&";
            }
        }
    }

    /** A value with its runs of whitespace collapsed to one space and its ends stripped; most have none. */
    static String trimAll(String value) {
        int last = value.length() - 1;
        boolean plain = last < 0 || !Character.isWhitespace(value.charAt(0)) && !Character.isWhitespace(value.charAt(last));
        for (int i = 0; plain && i <= last; i++) {
            char c = value.charAt(i);
            plain = c != '\t' && c != '\n' && c != '\u000B' && c != '\f' && c != '\r'
                    && (c != ' ' || value.charAt(i + 1) != ' ');  // a space is never last here
        }
        return plain ? value : value.replaceAll("[ \\t\\n\\x0B\\f\\r]+", " ").strip();
    }
}
