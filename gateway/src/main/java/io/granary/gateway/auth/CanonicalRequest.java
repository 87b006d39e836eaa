package io.granary.gateway.auth;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The expected signature, computed with JCA, for the requests the SDK's signer cannot reproduce (see
 * {@link SdkSignature#canReproduce}): it builds the canonical request the way the SDK's V4CanonicalRequest does,
 * but from exactly the headers the client signed and with the payload hash the client declared. The SDK itself is
 * the reference for this in the tests.
 */
final class CanonicalRequest {

    private CanonicalRequest() {
    }

    static String signature(SigningInput input, byte[] signingKey) {
        String canonicalRequest = String.join("\n", input.method(), input.path(), query(input.query()),
                headers(input.headers()), String.join(";", input.headers().keySet()), input.payloadHash());
        String stringToSign = String.join("\n", Claim.ALGORITHM, input.timestamp(), input.scope(),
                SigV4Crypto.sha256Hex(canonicalRequest));
        return SigV4Crypto.hex(SigV4Crypto.hmac(signingKey, stringToSign));
    }

    /** Encoded names sorted, then encoded values per name; a parameter without a name is left out, as the SDK does. */
    static String query(List<UriEncoding.Param> params) {
        SortedMap<String, List<String>> sorted = new TreeMap<>();
        for (UriEncoding.Param p : params) {
            if (!p.name().isEmpty()) {
                sorted.computeIfAbsent(UriEncoding.encode(p.name()), n -> new ArrayList<>())
                        .add(UriEncoding.encode(p.value()));
            }
        }
        List<String> pairs = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : sorted.entrySet()) {
            Collections.sort(e.getValue());
            e.getValue().forEach(v -> pairs.add(e.getKey() + "=" + v));
        }
        return String.join("&", pairs);
    }

    /** "name:value\n" per header; several values are joined with ',', each trimmed with inner whitespace collapsed. */
    static String headers(SortedMap<String, List<String>> headers) {
        StringBuilder out = new StringBuilder();
        headers.forEach((name, values) -> out.append(name).append(':')
                .append(values.stream().map(CanonicalRequest::trimAll).collect(Collectors.joining(",")))
                .append('\n'));
        return out.toString();
    }

    private static String trimAll(String value) {
        return value.replaceAll("[ \\t\\n\\x0B\\f\\r]+", " ").strip();
    }
}
