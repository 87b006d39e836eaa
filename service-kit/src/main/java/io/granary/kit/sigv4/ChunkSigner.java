package io.granary.kit.sigv4;

/**
 * Computes the signatures of an aws-chunked body's chunks and trailer with the request's signing key, scope and
 * timestamp. The SDK has no public API to verify these, so this is JCA HMAC-SHA256 over the strings to sign S3
 * documents. It is immutable and keeps no chain: whoever reads the body carries the previous signature, starting
 * from {@link #seed()}, so a {@link Principal} can be shared freely.
 */
public final class ChunkSigner {

    private final byte[] signingKey;
    private final String timestamp;
    private final String scope;
    private final String seed;

    ChunkSigner(byte[] signingKey, String timestamp, String scope, String seed) {
        this.signingKey = signingKey.clone();
        this.timestamp = timestamp;
        this.scope = scope;
        this.seed = seed;
    }

    /** The request's own signature: the "previous signature" of the first chunk. */
    public String seed() {
        return seed;
    }

    /** The signature of a chunk whose data hashes to dataSha256, chained after previous. */
    public String chunkSignature(String previous, byte[] dataSha256) {
        return sign("AWS4-HMAC-SHA256-PAYLOAD\n" + timestamp + "\n" + scope + "\n" + previous + "\n"
                + SigV4Crypto.EMPTY_SHA256 + "\n" + SigV4Crypto.hex(dataSha256));
    }

    /** The signature of the trailer whose canonical form ("name:value\n" per header, sorted) hashes to trailerSha256. */
    public String trailerSignature(String previous, byte[] trailerSha256) {
        return sign("AWS4-HMAC-SHA256-TRAILER\n" + timestamp + "\n" + scope + "\n" + previous + "\n"
                + SigV4Crypto.hex(trailerSha256));
    }

    private String sign(String stringToSign) {
        return SigV4Crypto.hex(SigV4Crypto.hmac(signingKey, stringToSign));
    }
}
