package io.granary.ufs;

/** An S3 key pair. {@link #toString()} keeps the secret (and most of the access key) out of logs. */
public record Credentials(String accessKey, String secretKey) {

    public Credentials {
        if (accessKey == null || accessKey.isEmpty() || secretKey == null || secretKey.isEmpty()) {
            throw new IllegalArgumentException("credentials need both an access key and a secret key");
        }
    }

    @Override
    public String toString() {
        String shown = accessKey.length() > 4 ? accessKey.substring(0, 4) + "…" : "…";
        return "Credentials[accessKey=" + shown + ", secretKey=***]";
    }
}
