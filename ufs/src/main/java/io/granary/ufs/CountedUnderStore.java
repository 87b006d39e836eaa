package io.granary.ufs;

import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** Passes every call on, telling {@code requests} its operation first ({@code stat}, {@code read}...). */
final class CountedUnderStore implements UnderStore {

    private final UnderStore store;
    private final Consumer<String> requests;

    CountedUnderStore(UnderStore store, Consumer<String> requests) {
        this.store = store;
        this.requests = requests;
    }

    @Override
    public ObjectInfo stat(String path) {
        requests.accept("stat");
        return store.stat(path);
    }

    @Override
    public ListPage list(String prefix, String delimiter, String cursor, int limit) {
        requests.accept("list");
        return store.list(prefix, delimiter, cursor, limit);
    }

    @Override
    public InputStream read(String path, long offset, long length) {
        requests.accept("read");
        return store.read(path, offset, length);
    }

    @Override
    public InputStream read(String path, String etag, long offset, long length) {
        requests.accept("read");
        return store.read(path, etag, offset, length);
    }

    @Override
    public ObjectInfo write(String path, InputStream data, long size, Map<String, String> metadata) {
        requests.accept("write");
        return store.write(path, data, size, metadata);
    }

    @Override
    public void delete(String path) {
        requests.accept("delete");
        store.delete(path);
    }

    @Override
    public String startUpload(String path, Map<String, String> metadata) {
        requests.accept("upload");
        return store.startUpload(path, metadata);
    }

    @Override
    public String uploadPart(String path, String uploadId, int partNumber, InputStream data, long size) {
        requests.accept("upload");
        return store.uploadPart(path, uploadId, partNumber, data, size);
    }

    @Override
    public ObjectInfo completeUpload(String path, String uploadId, List<UploadedPart> parts) {
        requests.accept("upload");
        return store.completeUpload(path, uploadId, parts);
    }

    @Override
    public ObjectInfo replaceMetadata(String path, String etag, Map<String, String> metadata) {
        requests.accept("write");
        return store.replaceMetadata(path, etag, metadata);
    }

    @Override
    public void abortUpload(String path, String uploadId) {
        requests.accept("upload");
        store.abortUpload(path, uploadId);
    }

    @Override
    public void probe() {
        requests.accept("probe");
        store.probe();
    }

    @Override
    public void close() {
        store.close();
    }
}
