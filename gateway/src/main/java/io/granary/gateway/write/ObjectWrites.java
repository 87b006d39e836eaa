package io.granary.gateway.write;

import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.kit.sigv4.Principal;
import io.granary.gateway.client.NearCache;
import io.granary.gateway.config.GatewayConfig;
import io.granary.kit.client.MetadataClient;
import io.granary.ufs.MountedStores;
import io.granary.ufs.ObjectChangedException;
import io.granary.ufs.ObjectInfo;
import io.granary.ufs.ObjectNotFoundException;
import io.granary.ufs.UploadNotFoundException;
import io.granary.ufs.UploadedPart;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.WebApplicationException;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * The write path: PutObject, multipart uploads and DeleteObject, written through to the under-store (which stays
 * the truth), then into the cache from the staged bytes, and made known to the metadata-service, which re-reads
 * the file from the store and announces the change. Multipart uploads are the under-store's own, so any gateway
 * replica can take any part; this replica keeps the parts it took, to fill the cache when the upload completes.
 */
@ApplicationScoped
public class ObjectWrites {

    private static final Logger LOG = Logger.getLogger(ObjectWrites.class);

    private final Vertx vertx;
    private final MountedStores stores;
    private final CachePush cache;
    private final MetadataClient metadata;
    private final NearCache near;
    private final Path spool;

    ObjectWrites(Vertx vertx, MountedStores stores, CachePush cache, @RestClient MetadataClient metadata,
                 NearCache near, GatewayConfig config) {
        this.vertx = vertx;
        this.stores = stores;
        this.cache = cache;
        this.metadata = metadata;
        this.near = near;
        this.spool = config.spoolDir().toAbsolutePath();
    }

    /** PutObject; {@code metadata} are the object's standard headers and user metadata, kept with it. */
    public Future<UploadedObject> put(HttpServerRequest http, Principal principal, Dataset dataset, String key,
                                      Map<String, String> metadata) {
        return BodySpool.spool(vertx, http, principal, spool)
                .compose(body -> writeSpooled(body, dataset, key, () -> metadata))
                .map(file -> new UploadedObject(file.etag()));
    }

    /**
     * A staged body to the under-store (with the metadata {@code metadata} gives, asked for off the event loop),
     * then known to the metadata, then into the cache; the staged file goes either way.
     */
    private Future<FileInfo> writeSpooled(Spooled body, Dataset dataset, String key,
                                          Callable<Map<String, String>> metadata) {
        return vertx.<FileInfo>executeBlocking(() -> {
            MountedStores.Located located = stores.locate(dataset.spec().mounts(), key);
            ObjectInfo written;
            try (InputStream in = Files.newInputStream(body.file())) {
                written = located.store().write(located.key(), in, body.size(), metadata.call());
            }
            return known(dataset, key, written);
        }, false).compose(file -> cache.push(dataset, file, body.file()).map(file))
                .andThen(done -> BodySpool.deleteQuietly(body.file()));
    }

    /**
     * CopyObject: the source object's version ({@code from}, as the caller resolved it) is read from its
     * under-store into the spool, written to the target's, and pushed into the cache as a PutObject's body is.
     * The source changing meanwhile fails the copy (ObjectChangedException) rather than mixing two versions.
     *
     * @param metadata the copy's metadata; null: the source's, as its under-store has it now
     */
    public Future<FileInfo> copy(Dataset source, FileInfo from, Dataset target, String key,
                                 Map<String, String> metadata) {
        return vertx.<Spooled>executeBlocking(() -> spoolRange(source, from, 0, from.size()), false)
                .compose(body -> writeSpooled(body, target, key,
                        () -> metadata != null ? metadata : metadataNow(source, from.path())));
    }

    /**
     * UploadPartCopy: {@code length} bytes of the source from {@code offset} become a part of the upload, kept
     * here like an uploaded part for the cache fill at completion.
     */
    public Future<String> copyPart(Dataset source, FileInfo from, long offset, long length, Dataset target,
                                   String key, String uploadId, int partNumber) {
        if (uploadId == null || uploadId.isBlank()) {
            return noUploadId();
        }
        return vertx.<Spooled>executeBlocking(() -> spoolRange(source, from, offset, length), false)
                .compose(body -> vertx.<String>executeBlocking(() -> storePart(body, target, key, uploadId, partNumber),
                        false).andThen(done -> BodySpool.deleteQuietly(body.file())));
    }

    /** Blocking: the object's metadata as its under-store has it (a listing left the metadata cache without). */
    public Map<String, String> metadataNow(Dataset dataset, String key) {
        MountedStores.Located located = stores.locate(dataset.spec().mounts(), key);
        return located.store().stat(located.key()).metadata();
    }

    /** Blocking: a new file in the spool, which a gateway that has spooled no body yet has not made. */
    private Path spoolFile(String prefix) throws IOException {
        return Files.createTempFile(Files.createDirectories(spool), prefix, ".part");
    }

    /** Blocking: a range of a version of an object, from its under-store into a file of the spool. */
    private Spooled spoolRange(Dataset source, FileInfo from, long offset, long length) throws IOException {
        MountedStores.Located located = stores.locate(source.spec().mounts(), from.path());
        Path file = spoolFile("copy-");
        try (InputStream in = located.store().read(located.key(), from.etag(), offset, length)) {
            long copied = Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            if (copied != length) {
                throw new ObjectChangedException("'" + from.path() + "' gave " + copied + " bytes of the " + length
                        + " asked for");
            }
            return new Spooled(file, length);
        } catch (IOException | RuntimeException e) {
            BodySpool.deleteQuietly(file);
            throw e;
        }
    }

    /**
     * Blocking: the object as the under-store has it now (a conditional write is checked against this, not
     * the cache's view), and the metadata-service told of it; empty when there is none.
     */
    public Optional<FileInfo> current(Dataset dataset, String key) {
        return metadata.findRefreshed(dataset.name(), key);
    }

    /** Blocking. */
    public String createUpload(Dataset dataset, String key, Map<String, String> metadata) {
        MountedStores.Located located = stores.locate(dataset.spec().mounts(), key);
        return located.store().startUpload(located.key(), metadata);
    }

    public Future<String> uploadPart(HttpServerRequest http, Principal principal, Dataset dataset, String key,
                                     String uploadId, int partNumber) {
        if (uploadId == null || uploadId.isBlank()) {
            return noUploadId();
        }
        return BodySpool.spool(vertx, http, principal, spool).compose(body -> vertx.<String>executeBlocking(
                () -> storePart(body, dataset, key, uploadId, partNumber), false)
                .andThen(done -> BodySpool.deleteQuietly(body.file())));
    }

    private static <T> Future<T> noUploadId() {
        return Future.failedFuture(io.granary.gateway.s3.S3Exception.invalidArgument("uploadId is required"));
    }

    /** Blocking: the spooled part into the under-store's upload, then kept here (moved, not copied). */
    private String storePart(Spooled body, Dataset dataset, String key, String uploadId, int partNumber)
            throws IOException {
        MountedStores.Located located = stores.locate(dataset.spec().mounts(), key);
        String etag;
        try (InputStream in = Files.newInputStream(body.file())) {
            etag = located.store().uploadPart(located.key(), uploadId, partNumber, in, body.size());
        }
        Path kept = Files.createDirectories(parts(uploadId)).resolve(Integer.toString(partNumber));
        Files.move(body.file(), kept, StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(kept.resolveSibling(partNumber + ".etag"), etag);
        return etag;
    }

    /**
     * Blocking: completes in the under-store and answers; the cache fills from the parts this replica holds
     * afterwards (or, when other replicas took some, the owners read the object back from the under-store). A multi-GB object takes a while to push, and an SDK waits about 60 s for the answer; a read
     * before the push ends only misses the blocks not there yet.
     */
    public UploadedObject completeUpload(Dataset dataset, String key, String uploadId, List<UploadedPart> parts) {
        MountedStores.Located located = stores.locate(dataset.spec().mounts(), key);
        ObjectInfo written;
        try {
            written = located.store().completeUpload(located.key(), uploadId, parts);
        } catch (UploadNotFoundException e) {
            return completedAlready(located, parts).orElseThrow(() -> e);
        }
        FileInfo file = known(dataset, key, written);
        vertx.executeBlocking(() -> join(uploadId, parts), false)
                .compose(joined -> {
                    if (joined == null) {
                        LOG.debugf("upload of %s: some parts went through another gateway; its owners fill it", key);
                        return cache.fill(dataset, file);
                    }
                    return cache.push(dataset, file, joined).andThen(pushed -> BodySpool.deleteQuietly(joined));
                })
                .onFailure(e -> LOG.warnf("upload of %s: the cache was not filled (%s); its blocks fill on first read",
                        key, e.getMessage()))
                .andThen(done -> vertx.executeBlocking(() -> {
                    forget(uploadId);
                    return null;
                }, false));
        return new UploadedObject(written.etag());
    }

    /**
     * A completion sent again (a client retrying one whose answer it lost): S3 answers with the object while it is
     * the one those parts made, which its ETag tells.
     */
    private static Optional<UploadedObject> completedAlready(MountedStores.Located located, List<UploadedPart> parts) {
        String etag = UploadedPart.objectEtag(parts);
        try {
            ObjectInfo now = located.store().stat(located.key());
            return etag != null && etag.equals(now.etag()) ? Optional.of(new UploadedObject(now.etag())) : Optional.empty();
        } catch (ObjectNotFoundException gone) {
            return Optional.empty();
        }
    }

    /** Blocking. */
    public void abortUpload(Dataset dataset, String key, String uploadId) {
        MountedStores.Located located = stores.locate(dataset.spec().mounts(), key);
        located.store().abortUpload(located.key(), uploadId);
        forget(uploadId);
    }

    /**
     * Blocking: the object's metadata replaced, its bytes untouched, if it is still the version {@code file};
     * the metadata-service and this gateway learn it as after a write.
     */
    public FileInfo replaceMetadata(Dataset dataset, FileInfo file, Map<String, String> metadata) {
        MountedStores.Located located = stores.locate(dataset.spec().mounts(), file.path());
        return known(dataset, file.path(), located.store().replaceMetadata(located.key(), file.etag(), metadata));
    }

    /** Blocking. Deleting a missing key is no error, as in S3. */
    public void delete(Dataset dataset, String key) {
        MountedStores.Located located = stores.locate(dataset.spec().mounts(), key);
        located.store().delete(located.key());
        refresh(dataset, key);
        near.forgetFile(dataset.name(), key);
    }

    /** The metadata-service re-reads the file; this gateway knows it at once. */
    private FileInfo known(Dataset dataset, String key, ObjectInfo written) {
        FileInfo file = new FileInfo(key, written.size(), written.mtime(), written.etag(), written.metadata());
        refresh(dataset, key);
        near.put(dataset.name(), file);
        return file;
    }

    /** Gone (a delete) is a fine answer; any other failure only delays what the next sync finds. */
    private void refresh(Dataset dataset, String key) {
        try {
            metadata.findRefreshed(dataset.name(), key);
        } catch (WebApplicationException e) {
            LOG.warnf("metadata of %s/%s not refreshed (%s); the next sync will find it", dataset.name(), key,
                    e.getMessage());
        }
    }

    /** The parts, in the order completed, as one staged file; null when this replica does not hold them all. */
    private Path join(String uploadId, List<UploadedPart> parts) throws IOException {
        Path dir = parts(uploadId);
        for (UploadedPart part : parts) {
            Path etag = dir.resolve(part.partNumber() + ".etag");
            if (!Files.isRegularFile(etag) || !Files.readString(etag).equals(part.etag())) {
                return null;
            }
        }
        Path joined = spoolFile("joined-");
        try (OutputStream out = Files.newOutputStream(joined)) {
            for (UploadedPart part : parts) {
                Files.copy(dir.resolve(Integer.toString(part.partNumber())), out);
            }
        }
        return joined;
    }

    private void forget(String uploadId) {
        Path dir = parts(uploadId);
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(BodySpool::deleteQuietly);
        } catch (IOException e) {
            LOG.debugf("parts of upload %s not all removed: %s", uploadId, e.getMessage());
        }
    }

    /** Upload ids are the under-store's and opaque: hashed into a directory name that cannot leave the spool. */
    private Path parts(String uploadId) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(uploadId.getBytes(StandardCharsets.UTF_8));
            return spool.resolve("uploads").resolve(HexFormat.of().formatHex(hash, 0, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
