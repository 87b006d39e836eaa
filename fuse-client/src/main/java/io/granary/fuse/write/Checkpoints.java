package io.granary.fuse.write;

import io.granary.fuse.metrics.FuseMetrics;
import io.granary.ufs.Credentials;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.UUID;

/**
 * Files written through the mount, such as checkpoints: staged on local disk while they are written, and put
 * through the gateway's S3 API when they are closed, which writes them to the under-store and into the cache (as
 * any S3 client's PUT). The put ends before close returns, so a read after close sees the new file.
 */
public final class Checkpoints implements AutoCloseable {

    private final URI gateway;
    private final Credentials credentials;
    private final Path staging;
    private final FuseMetrics metrics;
    /** Built at the first write or by {@link #prepare}, not before the mount: the SDK takes seconds to start. */
    private S3Client s3;

    public Checkpoints(URI gateway, Credentials credentials, Path staging, FuseMetrics metrics) throws IOException {
        this.gateway = gateway;
        this.credentials = credentials;
        this.staging = Files.createDirectories(staging);
        this.metrics = metrics;
    }

    /** Starts the S3 client now (off the mount's path), so the first checkpoint does not wait for it. */
    public void prepare() {
        s3();
    }

    private synchronized S3Client s3() {
        if (s3 == null) {
            s3 = S3Client.builder().endpointOverride(gateway).region(Region.US_EAST_1).forcePathStyle(true)
                    .credentialsProvider(StaticCredentialsProvider.create(
                            AwsBasicCredentials.create(credentials.accessKey(), credentials.secretKey())))
                    .httpClientBuilder(UrlConnectionHttpClient.builder().socketTimeout(Duration.ofMinutes(10)))
                    .build();
        }
        return s3;
    }

    /** A file being written: its bytes go to a staged file until it is closed. */
    public final class Staged {

        private final String dataset;
        private final String path;
        private final Path file;
        private final FileChannel channel;
        private boolean dirty;

        private Staged(String dataset, String path) throws IOException {
            this.dataset = dataset;
            this.path = path;
            this.file = staging.resolve(UUID.randomUUID().toString());
            this.channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            this.dirty = true;  // a new file exists once it is closed, even empty
        }

        public String dataset() {
            return dataset;
        }

        public String path() {
            return path;
        }

        public synchronized int write(ByteBuffer data, long offset) throws IOException {
            int written = 0;
            while (data.hasRemaining()) {
                written += channel.write(data, offset + written);
            }
            dirty = true;
            return written;
        }

        public synchronized int read(ByteBuffer into, long offset) throws IOException {
            int read = channel.read(into, offset);
            return Math.max(read, 0);
        }

        public synchronized void truncate(long size) throws IOException {
            if (size < channel.size()) {
                channel.truncate(size);
            } else if (size > channel.size()) {
                channel.write(ByteBuffer.allocate(1), size - 1);
            }
            dirty = true;
        }

        public synchronized long size() throws IOException {
            return channel.size();
        }

        /** Puts the file through the gateway when it changed since the last put; called on flush and close. */
        public synchronized void upload() throws IOException {
            if (!dirty) {
                return;
            }
            channel.force(false);
            long size = channel.size();
            s3().putObject(put -> put.bucket(dataset).key(path), RequestBody.fromFile(file));
            metrics.written(size);
            dirty = false;
        }

        /** Closes the staged file and removes it (after {@link #upload}, or to drop what was written). */
        public synchronized void discard() throws IOException {
            channel.close();
            Files.deleteIfExists(file);
        }
    }

    public Staged create(String dataset, String path) throws IOException {
        return new Staged(dataset, path);
    }

    /** Removes the object through the gateway, which deletes it in the under-store and tells the others. */
    public void delete(String dataset, String path) {
        s3().deleteObject(delete -> delete.bucket(dataset).key(path));
    }

    @Override
    public synchronized void close() {
        if (s3 != null) {
            s3.close();
        }
    }
}
