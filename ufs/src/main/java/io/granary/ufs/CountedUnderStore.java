package io.granary.ufs;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** Passes every call on, telling {@code requests} its operation first ({@code stat}, {@code read}...). */
final class CountedUnderStore implements UnderStore {

    static final String STAT = "stat";
    static final String LIST = "list";
    static final String READ = "read";
    static final String WRITE = "write";
    static final String DELETE = "delete";
    static final String UPLOAD = "upload";
    static final String PROBE = "probe";
    static final List<String> OPERATIONS = List.of(STAT, LIST, READ, WRITE, DELETE, UPLOAD, PROBE);

    private final UnderStore store;
    private final Consumer<String> requests;

    CountedUnderStore(UnderStore store, Consumer<String> requests) {
        this.store = store;
        this.requests = requests;
    }

    @Override
    public ObjectInfo stat(String path) {
        requests.accept(STAT);
        return store.stat(path);
    }

    @Override
    public ListPage list(String prefix, String delimiter, String cursor, int limit) {
        requests.accept(LIST);
        return store.list(prefix, delimiter, cursor, limit);
    }

    @Override
    public InputStream read(String path, long offset, long length) {
        requests.accept(READ);
        return store.read(path, offset, length);
    }

    @Override
    public InputStream read(String path, String etag, long offset, long length) {
        requests.accept(READ);
        return store.read(path, etag, offset, length);
    }

    @Override
    public ObjectInfo write(String path, InputStream data, long size, Map<String, String> metadata) {
        requests.accept(WRITE);
        return store.write(path, data, size, metadata);
    }

    @Override
    public void delete(String path) {
        requests.accept(DELETE);
        store.delete(path);
    }

    @Override
    public String startUpload(String path, Map<String, String> metadata) {
        requests.accept(UPLOAD);
        return store.startUpload(path, metadata);
    }

    @Override
    public String uploadPart(String path, String uploadId, int partNumber, InputStream data, long size) {
        requests.accept(UPLOAD);
        return store.uploadPart(path, uploadId, partNumber, data, size);
    }

    @Override
    public ObjectInfo completeUpload(String path, String uploadId, List<UploadedPart> parts) {
        requests.accept(UPLOAD);
        return store.completeUpload(path, uploadId, parts);
    }

    @Override
    public ObjectInfo replaceMetadata(String path, String etag, Map<String, String> metadata) {
        requests.accept(WRITE);
        return store.replaceMetadata(path, etag, metadata);
    }

    @Override
    public void abortUpload(String path, String uploadId) {
        requests.accept(UPLOAD);
        store.abortUpload(path, uploadId);
    }

    /** {@link MountedStores#prepare}: a listing of one entry and one byte of it, counted as one probe. */
    void prepare() {
        requests.accept(PROBE);
        for (ObjectInfo first : store.list("", "/", null, 1).objects()) {
            if (first.size() > 0) {
                try (InputStream in = store.read(first.path(), first.etag(), 0, 1)) {
                    in.readAllBytes();
                } catch (IOException e) {
                    throw new UnderStoreException("reading '" + first.path() + "': " + e.getMessage(), e);
                }
            }
        }
    }

    @Override
    public void probe() {
        requests.accept(PROBE);
        store.probe();
    }

    @Override
    public void close() {
        store.close();
    }
}
