package io.granary.ufs;

import io.minio.AbortMultipartUploadArgs;
import io.minio.BucketExistsArgs;
import io.minio.CompleteMultipartUploadArgs;
import io.minio.CopyObjectArgs;
import io.minio.SourceObject;
import io.minio.CreateMultipartUploadArgs;
import io.minio.GetObjectArgs;
import io.minio.Http;
import io.minio.ListObjectsV2Args;
import io.minio.MinioAsyncClient;
import io.minio.PutObjectArgs;
import io.minio.RemoveObjectArgs;
import io.minio.StatObjectArgs;
import io.minio.StatObjectResponse;
import io.minio.UploadPartArgs;
import io.minio.Directive;
import io.minio.errors.ErrorResponseException;
import io.minio.errors.MinioException;
import io.minio.messages.Item;
import io.minio.messages.ListBucketResultV2;
import io.minio.messages.ListObjectsResult;
import io.minio.messages.Part;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;

import java.io.Closeable;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * An S3 bucket prefix as an under-store, on the MinIO Java SDK. It uses the SDK's {@link MinioAsyncClient}
 * (which {@code MinioClient} only wraps) because that exposes ListObjectsV2 itself: one request per page,
 * with its truncation flag, instead of an iterator that pages on its own.
 *
 * <p>The listing cursor is the last key or common prefix of the page, sent back as {@code StartAfter}. A
 * common prefix given there is skipped whole (as with the V1 marker, where S3 itself hands out common prefixes
 * as NextMarker), so paging through a mix of prefixes and objects works, and the cursor stays readable.
 *
 * <p>Multipart uploads map one to one onto S3's own; the server keeps their state. The part order rule is
 * checked here before the request (S3Proxy, the test server, silently sorts the parts instead); the server
 * checks the rest (missing parts, etags, EntityTooSmall), and its error codes become our exceptions.
 */
public final class S3UnderStore implements UnderStore {

    /**
     * Objects above one part go multipart in parts of this size; the SDK buffers one part at a time. A part of a
     * caller's multipart upload is held in memory up to this size too, and in a temporary file above it.
     */
    static final long PART_SIZE = 16L << 20;

    /**
     * One HTTP client for every S3 mount of the process, sized for the concurrency of cold reads and DataLoads.
     * OkHttp's defaults, which the SDK keeps, allow 5 requests in flight per host (the SDK's calls are async, so the
     * rest queue in the dispatcher) and keep 5 idle connections (the rest are opened again for each request).
     * Otherwise the SDK's default client (its timeouts, HTTP/1.1, its retry of 503s), but not the trust store that
     * {@code Http.newDefaultClient()} builds at once from {@code SSL_CERT_FILE} and {@code SSL_CERT_DIR}: parsing
     * every certificate they name took a worker 2.5 s of CPU at its first store read (a whole epoch's profile: 13% of
     * its CPU), after every restart, for an endpoint that speaks no TLS. {@link #tls()} adds it for https.
     */
    static final OkHttpClient HTTP = new OkHttpClient.Builder()
            .connectTimeout(Http.DEFAULT_TIMEOUT, TimeUnit.MILLISECONDS)
            .writeTimeout(Http.DEFAULT_TIMEOUT, TimeUnit.MILLISECONDS)
            .readTimeout(Http.DEFAULT_TIMEOUT, TimeUnit.MILLISECONDS)
            .protocols(List.of(Protocol.HTTP_1_1))
            .addInterceptor(new Http.StatusRetryInterceptor())
            .dispatcher(dispatcher(256, 64))
            .connectionPool(new ConnectionPool(64, 5, TimeUnit.MINUTES))
            .build();

    /**
     * {@link #HTTP} trusting also the certificates the environment names, as the SDK's own client does: made at the
     * first https mount.
     */
    private static OkHttpClient tls;

    private final S3Location location;
    private final MinioAsyncClient client;

    /** @param credentials null for anonymous access */
    public S3UnderStore(S3Location location, Credentials credentials) {
        this.location = location;
        requireValidBucketName(location);
        MinioAsyncClient.Builder builder = MinioAsyncClient.builder()
                .endpoint(location.endpoint().toString())
                .region(location.region())
                .httpClient("https".equalsIgnoreCase(location.endpoint().getScheme()) ? tls() : HTTP,
                        false);  // shared: closing a store leaves the others' connections alone
        if (credentials != null) {
            builder.credentials(credentials.accessKey(), credentials.secretKey());
        }
        this.client = builder.build();
        if (Boolean.TRUE.equals(location.pathStyle())) {
            client.disableVirtualStyleEndpoint();
        } else if (Boolean.FALSE.equals(location.pathStyle())) {
            client.enableVirtualStyleEndpoint();
        }
    }

    /** Shares {@link #HTTP}'s dispatcher and connections. */
    private static synchronized OkHttpClient tls() {
        if (tls == null) {
            try {
                tls = Http.enableExternalCertificatesFromEnv(HTTP);
            } catch (MinioException e) {
                throw new UnderStoreException("the certificates SSL_CERT_FILE or SSL_CERT_DIR names could not be read: "
                        + e.getMessage(), e);
            }
        }
        return tls;
    }

    private static Dispatcher dispatcher(int requests, int requestsPerHost) {
        Dispatcher dispatcher = new Dispatcher();
        dispatcher.setMaxRequests(requests);
        dispatcher.setMaxRequestsPerHost(requestsPerHost);
        return dispatcher;
    }

    /** The SDK checks bucket names on every request; checked here, a bad mount fails when it is opened. */
    private static void requireValidBucketName(S3Location location) {
        try {
            BucketExistsArgs.builder().bucket(location.bucket()).build();
        } catch (IllegalArgumentException e) {
            throw new UnderStoreException("mount " + location.uri() + " has an invalid bucket name: " + e.getMessage());
        }
    }

    public S3Location location() {
        return location;
    }

    @Override
    public ObjectInfo stat(String path) {
        String key = Keys.object(path);
        StatObjectResponse response = await(client.statObject(StatObjectArgs.builder()
                .bucket(location.bucket()).object(location.prefix() + key).build()), key);
        // A HEAD's Last-Modified is to the second and the object was written within it: its end is reported, so a
        // sync tool comparing it with the file it came from (aws s3 sync) never sees the copy as the older of the
        // two. A listing gives milliseconds; the two agree on the version by the etag.
        Instant lastModified = response.lastModified().toInstant().truncatedTo(ChronoUnit.SECONDS).plusMillis(999);
        return new ObjectInfo(key, response.size(), lastModified, unquote(response.etag()),
                ObjectMetadata.of(() -> response.headers().toMultimap().entrySet().stream()
                        .map(header -> Map.entry(header.getKey(), String.join(",", header.getValue()))).iterator()));
    }

    @Override
    public ListPage list(String prefix, String delimiter, String cursor, int limit) {
        String keyPrefix = Keys.prefix(prefix);
        boolean delimited = Keys.delimited(delimiter);
        ListObjectsV2Args.Builder args = ListObjectsV2Args.builder()
                .bucket(location.bucket())
                .maxKeys(Keys.pageSize(limit));
        String fullPrefix = location.prefix() + keyPrefix;
        if (!fullPrefix.isEmpty()) {
            args.prefix(fullPrefix);
        }
        if (delimited) {
            args.delimiter("/");
        }
        if (cursor != null && !cursor.isEmpty()) {
            args.startAfter(location.prefix() + cursor);
        }
        ListBucketResultV2 result = await(client.listObjectsV2(args.build()), keyPrefix).result();

        List<ObjectInfo> objects = new ArrayList<>();
        String last = null;
        for (Item item : result.contents()) {
            String key = relative(item.objectName());
            last = max(last, key);
            // Zero-byte "folder" markers that consoles create are not files.
            if (!key.endsWith("/")) {
                objects.add(new ObjectInfo(key, item.size(), item.lastModified().toInstant(), unquote(item.etag())));
            }
        }
        List<String> commonPrefixes = new ArrayList<>();
        for (ListObjectsResult.Prefix commonPrefix : result.commonPrefixes()) {
            String key = relative(commonPrefix.toItem().objectName());
            last = max(last, key);
            commonPrefixes.add(key);
        }
        return new ListPage(objects, commonPrefixes, result.isTruncated() && last != null ? last : null);
    }

    @Override
    public InputStream read(String path, long offset, long length) {
        return read(path, null, offset, length);
    }

    @Override
    public InputStream read(String path, String etag, long offset, long length) {
        Keys.checkRange(offset, length);
        String key = Keys.object(path);
        if (length == 0) {
            ObjectInfo info = stat(key);  // S3 has no empty range; still fail for a missing object
            requireVersion(info, etag);
            return InputStream.nullInputStream();
        }
        GetObjectArgs.Builder args = GetObjectArgs.builder().bucket(location.bucket()).object(location.prefix() + key);
        if (etag != null) {
            args.matchETag(etag);  // If-Match: the store itself refuses another version, no extra HEAD
        }
        if (offset > 0 || length > 0) {
            args.offset(offset);
        }
        if (length > 0) {
            args.length(length);
        }
        try {
            return client.getObject(args.build()).join();
        } catch (CompletionException e) {
            String code = errorCode(e);
            if ("InvalidRange".equals(code)) {
                if (etag != null) {
                    requireVersion(stat(key), etag);
                }
                return InputStream.nullInputStream();  // offset at or past the end: nothing to read, as locally
            }
            if ("PreconditionFailed".equals(code)) {
                throw changed(key, etag);
            }
            throw translate(e, key);
        }
    }

    @Override
    public ObjectInfo write(String path, InputStream data, long size, Map<String, String> metadata) {
        String key = Keys.object(path);
        SourceStream source = new SourceStream(data);
        try {
            PutObjectArgs.Builder put = PutObjectArgs.builder()
                    .bucket(location.bucket())
                    .object(location.prefix() + key)
                    .stream(source, size < 0 ? null : size, PART_SIZE)
                    .headers(withoutContentType(metadata));
            if (metadata.containsKey("content-type")) {
                put.contentType(metadata.get("content-type"));  // else the client sets its own default
            }
            client.putObject(put.build()).join();
        } catch (CompletionException e) {
            if (source.failure != null) {
                // The caller's stream broke (a client hung up): not the store's fault, so not "unavailable".
                throw new UnderStoreException("reading the data for '" + key + "' in " + location.uri()
                        + " failed: " + source.failure, source.failure);
            }
            throw translate(e, key);
        }
        // PUT answers with the etag only; a HEAD gives exactly what later stats will see, mtime included.
        return stat(key);
    }

    /**
     * A copy of the object onto itself with the new metadata, on the condition that it is still that version: a
     * stat first (not every store honours the copy's condition; S3 does, and closes the race).
     */
    @Override
    public ObjectInfo replaceMetadata(String path, String etag, Map<String, String> metadata) {
        String key = Keys.object(path);
        requireVersion(stat(key), etag);
        try {
            CopyObjectArgs.Builder copy = CopyObjectArgs.builder()
                    .bucket(location.bucket())
                    .object(location.prefix() + key)
                    .source(SourceObject.builder().bucket(location.bucket()).object(location.prefix() + key).build())
                    // Quoted, as some stores compare it (the SDK's matchETag sends it bare)
                    .extraHeaders(Map.of("x-amz-copy-source-if-match", '"' + etag + '"'))
                    .metadataDirective(Directive.REPLACE)
                    .headers(metadata);
            client.copyObject(copy.build()).join();
        } catch (CompletionException e) {
            if ("PreconditionFailed".equals(errorCode(e))) {
                throw changed(key, etag);
            }
            throw translate(e, key);
        }
        return stat(key);
    }

    @Override
    public void delete(String path) {
        String key = Keys.object(path);
        await(client.removeObject(RemoveObjectArgs.builder()
                .bucket(location.bucket()).object(location.prefix() + key).build()), key);
    }

    @Override
    public String startUpload(String path, Map<String, String> metadata) {
        String key = Keys.object(path);
        return await(client.createMultipartUpload(CreateMultipartUploadArgs.builder()
                .bucket(location.bucket()).object(location.prefix() + key).headers(new Http.Headers(metadata))
                .build()), key).result().uploadId();
    }

    private static Map<String, String> withoutContentType(Map<String, String> metadata) {
        Map<String, String> headers = new HashMap<>(metadata);
        headers.remove("content-type");
        return headers;
    }

    @Override
    public String uploadPart(String path, String uploadId, int partNumber, InputStream data, long size) {
        String key = Keys.object(path);
        Uploads.checkUploadId(uploadId);
        Uploads.checkPart(partNumber, size);
        try (SpooledPart part = SpooledPart.read(data, size, "part " + partNumber + " of '" + key + "' in "
                + location.uri())) {
            UploadPartArgs.Builder args = UploadPartArgs.builder()
                    .bucket(location.bucket())
                    .object(location.prefix() + key)
                    .uploadId(uploadId)
                    .partNumber(partNumber)
                    .headers(part.headers());
            if (part.file != null) {
                args.file(part.file, size);
            } else {
                args.data(part.bytes, (int) size);
            }
            return unquote(await(client.uploadPart(args.build()), key).part().etag());
        }
    }

    @Override
    public ObjectInfo completeUpload(String path, String uploadId, List<UploadedPart> parts) {
        String key = Keys.object(path);
        Uploads.checkUploadId(uploadId);
        Uploads.checkOrder(parts, key);
        await(client.completeMultipartUpload(CompleteMultipartUploadArgs.builder()
                .bucket(location.bucket())
                .object(location.prefix() + key)
                .uploadId(uploadId)
                .parts(parts.stream().map(part -> new Part(part.partNumber(), part.etag())).toArray(Part[]::new))
                .build()), key);
        // As after a PUT: a HEAD gives exactly what later stats will see.
        return stat(key);
    }

    @Override
    public void abortUpload(String path, String uploadId) {
        String key = Keys.object(path);
        Uploads.checkUploadId(uploadId);
        try {
            client.abortMultipartUpload(AbortMultipartUploadArgs.builder()
                    .bucket(location.bucket()).object(location.prefix() + key).uploadId(uploadId).build()).join();
        } catch (CompletionException e) {
            if (!"NoSuchUpload".equals(errorCode(e))) {
                throw translate(e, key);
            }
        }
    }

    @Override
    public void close() {
        client.close();
    }

    @Override
    public String toString() {
        return "S3UnderStore[" + location.uri() + " at " + location.endpoint() + "]";
    }

    /** Remembers whether the data stream itself failed, to tell a broken upload from a broken store. */
    private static final class SourceStream extends FilterInputStream {

        private IOException failure;

        SourceStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            try {
                return in.read();
            } catch (IOException e) {
                failure = e;
                throw e;
            }
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            try {
                return in.read(buffer, offset, length);
            } catch (IOException e) {
                failure = e;
                throw e;
            }
        }
    }

    /**
     * A part read whole before it is sent, as the SDK needs (it takes a part as bytes or a file, not a stream):
     * in memory up to {@link #PART_SIZE}, the size {@link #write} buffers too, in a temporary file above. Its
     * SHA-256 (the signed payload) and MD5 (Content-MD5, which S3 checks) are computed on the way in and handed
     * to the SDK, which then reads the data only to send it. Without them it would hash the file itself and
     * leave the file pointer at the end, where its request body then starts; and with Content-MD5 given it adds
     * no x-amz-checksum header, which an upload created without a checksum algorithm may refuse.
     */
    private static final class SpooledPart implements Closeable {

        private static final int READ_CHUNK = 1 << 20;
        private byte[] bytes;
        private Path path;
        private RandomAccessFile file;
        private final MessageDigest sha256 = digest("SHA-256");
        private final MessageDigest md5 = digest("MD5");

        static SpooledPart read(InputStream data, long size, String what) {
            SpooledPart part = new SpooledPart();
            try {
                InputStream in = new LimitedInputStream(data, size + 1);  // one byte more shows a longer stream
                long read;
                if (size <= PART_SIZE) {
                    part.bytes = new byte[(int) size];
                    read = readFully(in, part.bytes);
                    if (read == size && in.read() >= 0) {
                        read++;
                    }
                    part.sha256.update(part.bytes, 0, (int) Math.min(read, size));
                    part.md5.update(part.bytes, 0, (int) Math.min(read, size));
                } else {
                    part.path = Files.createTempFile("granary-part-", null);
                    try (OutputStream out = Files.newOutputStream(part.path)) {
                        read = part.copy(in, out);
                    }
                    part.file = new RandomAccessFile(part.path.toFile(), "r");
                }
                if (read != size) {
                    throw new UnderStoreException(what + " got " + (read > size ? "more than " + size : read)
                            + " bytes, expected " + size);
                }
                return part;
            } catch (IOException e) {
                // The caller's stream broke (a client hung up), or the temporary file did: not the store's fault.
                part.close();
                throw new UnderStoreException("reading the data for " + what + " failed: " + e, e);
            } catch (RuntimeException e) {
                part.close();
                throw e;
            }
        }

        /**
         * Fills {@code bytes} in reads of at most {@link #READ_CHUNK}: a file read into a larger heap array goes
         * through a temporary direct buffer of the array's size, which the JDK then keeps for the thread; 16 MiB
         * on every thread that ever read a part took a gateway's direct memory in a minute of 2 GiB uploads.
         */
        private static int readFully(InputStream in, byte[] bytes) throws IOException {
            int read = 0;
            while (read < bytes.length) {
                int n = in.read(bytes, read, Math.min(READ_CHUNK, bytes.length - read));
                if (n < 0) {
                    break;
                }
                read += n;
            }
            return read;
        }

        private long copy(InputStream in, OutputStream out) throws IOException {
            byte[] buffer = new byte[1 << 16];
            long total = 0;
            for (int n; (n = in.read(buffer)) > 0; ) {
                sha256.update(buffer, 0, n);
                md5.update(buffer, 0, n);
                out.write(buffer, 0, n);
                total += n;
            }
            return total;
        }

        Http.Headers headers() {
            return new Http.Headers(
                    Http.Headers.X_AMZ_CONTENT_SHA256, HexFormat.of().formatHex(sha256.digest()),
                    Http.Headers.CONTENT_MD5, Base64.getEncoder().encodeToString(md5.digest()));
        }

        @Override
        public void close() {
            try {
                if (file != null) {
                    file.close();
                }
                if (path != null) {
                    Files.deleteIfExists(path);
                }
            } catch (IOException e) {
                // A leftover temporary file only costs disk space.
            }
        }

        private static MessageDigest digest(String algorithm) {
            try {
                return MessageDigest.getInstance(algorithm);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JDK has " + algorithm, e);
            }
        }
    }

    private String relative(String fullKey) {
        return fullKey.substring(location.prefix().length());
    }

    private static String max(String a, String b) {
        return a == null || Keys.compare(b, a) > 0 ? b : a;
    }

    static String unquote(String etag) {
        return etag != null && etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"")
                ? etag.substring(1, etag.length() - 1)
                : etag;
    }

    private <T> T await(CompletableFuture<T> future, String key) {
        try {
            return future.join();
        } catch (CompletionException e) {
            throw translate(e, key);
        }
    }

    private void requireVersion(ObjectInfo info, String etag) {
        if (etag != null && !etag.equals(info.etag())) {
            throw changed(info.path(), etag);
        }
    }

    private ObjectChangedException changed(String key, String etag) {
        return new ObjectChangedException("'" + key + "' in " + location.uri() + " is no longer version " + etag);
    }

    private static String errorCode(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ErrorResponseException error) {
                return error.errorResponse().code();
            }
        }
        return null;
    }

    /** SDK failures as ours. Messages name the mount and the S3 error code; a secret is never part of them. */
    private UnderStoreException translate(CompletionException completion, String key) {
        Throwable failure = completion.getCause() == null ? completion : completion.getCause();
        String code = errorCode(failure);
        String where = (key.isEmpty() ? "" : "'" + key + "' in ") + location.uri() + " at " + location.endpoint();
        if (code != null) {
            return switch (code) {
                case "NoSuchKey", "NoSuchObject", "ResourceNotFound" ->
                        new ObjectNotFoundException("no object " + where);
                case "NoSuchUpload" -> new UploadNotFoundException("no such upload of " + where, failure);
                case "InvalidPart" -> new InvalidPartException(InvalidPartException.Reason.INVALID_PART,
                        "a part named for " + where + " was never uploaded or has another etag", failure);
                case "InvalidPartOrder" -> new InvalidPartException(InvalidPartException.Reason.INVALID_PART_ORDER,
                        "the parts named for " + where + " are not in ascending order", failure);
                case "EntityTooSmall" -> new InvalidPartException(InvalidPartException.Reason.ENTITY_TOO_SMALL,
                        "a part but the last of " + where + " is smaller than 5 MiB", failure);
                case "NoSuchBucket" -> new UnderStoreException("bucket '" + location.bucket() + "' of "
                        + location.uri() + " does not exist at " + location.endpoint(), failure);
                case "AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId", "InvalidToken", "ExpiredToken",
                     "AllAccessDisabled", "AccountProblem" ->
                        new AccessDeniedException("access to " + where + " denied (" + code
                                + "): check the credentials of this mount", failure);
                default -> new UnderStoreException("S3 error " + code + " for " + where, failure);
            };
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof IOException) {
                return new UnderStoreUnavailableException("cannot reach " + where + ": " + t, failure);
            }
        }
        return new UnderStoreException("S3 request for " + where + " failed: " + failure, failure);
    }
}
