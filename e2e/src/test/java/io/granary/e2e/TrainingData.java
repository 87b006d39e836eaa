package io.granary.e2e;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

/**
 * A training set as object storage holds one: many small samples in shards, and one large file (a base model).
 * Objects are random bytes from a seed; what the test keeps is each key's size and SHA-256.
 */
final class TrainingData {

    static final String LARGE_KEY = "models/base-model.bin";

    private final Map<String, String> sha256 = new TreeMap<>();
    private final Map<String, Long> sizes = new TreeMap<>();

    /** Writes {@code files} samples of 4 to 64 KiB and one file of {@code largeMib} MiB into the bucket. */
    static TrainingData upload(S3Client store, String bucket, int files, int largeMib, long seed) throws Exception {
        TrainingData data = new TrainingData();
        ExecutorService writers = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> writes = IntStream.range(0, files).<Future<?>>mapToObj(i -> writers.submit(() -> {
                Random random = new Random(seed + i);
                byte[] bytes = new byte[4096 + random.nextInt(60 * 1024)];
                random.nextBytes(bytes);
                data.put(store, bucket, "train/shard-%02d/sample-%05d.bin".formatted(i % 20, i), bytes);
            })).toList();
            for (Future<?> write : writes) {
                write.get();
            }
        } finally {
            writers.shutdown();
        }
        byte[] large = new byte[largeMib << 20];
        new Random(seed - 1).nextBytes(large);
        data.put(store, bucket, LARGE_KEY, large);
        return data;
    }

    private void put(S3Client store, String bucket, String key, byte[] bytes) {
        store.putObject(request -> request.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
        synchronized (this) {
            sha256.put(key, sha256(bytes));
            sizes.put(key, (long) bytes.length);
        }
    }

    Map<String, String> sha256() {
        return sha256;
    }

    long size(String key) {
        return sizes.get(key);
    }

    long totalBytes() {
        return sizes.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The SHA-256 of a stream's bytes, read to its end a buffer at a time (a 1 GiB object is never held). */
    static String sha256(InputStream in) throws IOException {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 20];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
