package io.granary.block;

import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.S3Resource;
import io.granary.ufs.Credentials;
import io.granary.ufs.S3Location;
import io.granary.ufs.S3UnderStore;
import io.restassured.path.json.JsonPath;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.restassured.RestAssured.given;

/** Buckets seeded on S3Proxy's disk, datasets created through the real metadata-service, and block reads over HTTP. */
final class Fixtures {

    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Fixtures() {
    }

    /**
     * Uploads an object through S3 (not straight into S3Proxy's directory), so it has the etag real S3 gives and
     * S3Proxy honours If-Match on it, as the worker's version-checked fills rely on.
     */
    static byte[] seed(Path buckets, String endpoint, String bucket, String key, int size, long seed) {
        byte[] content = new byte[size];
        new Random(seed).nextBytes(content);
        try {
            Files.createDirectories(buckets.resolve(bucket));  // with the filesystem backend a bucket is a directory
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (S3UnderStore store = new S3UnderStore(new S3Location(URI.create(endpoint), "us-east-1", bucket, "", true),
                new Credentials(S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY))) {
            store.write(key, new ByteArrayInputStream(content), size);
        }
        return content;
    }

    /** Creates a dataset over the bucket and waits until its metadata is loaded; returns path → etag. */
    static Map<String, String> dataset(String metadataUrl, String s3Endpoint, String name, String bucket,
                                       String blockSize) {
        Datasets.createBound(URI.create(metadataUrl),
                Datasets.spec(name, blockSize, Datasets.s3Mount(bucket, s3Endpoint)));
        JsonPath files = given().baseUri(metadataUrl).get("/api/v1/datasets/" + name + "/files?limit=1000").jsonPath();
        Map<String, String> etags = new HashMap<>();
        List<Map<String, Object>> entries = files.getList("files");
        for (Map<String, Object> entry : entries) {
            etags.put((String) entry.get("path"), (String) entry.get("etag"));
        }
        return etags;
    }

    static HttpResponse<byte[]> getBlock(URI worker, String dataset, String path, String etag, int index,
                                         String range) {
        HttpRequest.Builder request = HttpRequest.newBuilder(blockUri(worker, dataset, path, etag, index))
                .header("Authorization", Identities.CLUSTER_AUTHORIZATION);
        if (range != null) {
            request.header("Range", range);
        }
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads a block as a stream and returns its SHA-256, so large blocks never sit whole in the test's heap; with the
     * file's size named, as readers do, so a miss is streamed as it is filled.
     */
    static String sha256OfBlock(URI worker, String dataset, String path, String etag, int index, long fileSize)
            throws Exception {
        HttpResponse<InputStream> response = HTTP.send(HttpRequest.newBuilder(
                        sized(blockUri(worker, dataset, path, etag, index), fileSize))
                .header("Authorization", Identities.CLUSTER_AUTHORIZATION)
                .build(), HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET block answered " + response.statusCode());
        }
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (InputStream in = response.body()) {
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                sha.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    static URI blockUri(URI worker, String dataset, String path, String etag, int index) {
        return worker.resolve("/blocks/" + dataset + "/" + index + "?path=" + path + "&etag=" + etag);
    }

    /** The block's URI with the file's size named, as the gateway and the mount name it. */
    static URI sized(URI block, long fileSize) {
        return URI.create(block + "&size=" + fileSize);
    }

    static String sha256(byte[] content, int offset, int length) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(content, offset, length);
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
