package io.granary.gateway.client;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.kit.client.MetadataClient;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import java.time.Duration;
import java.util.Optional;

/**
 * The gateway's near cache of metadata: datasets and file stats, so a warm read asks the metadata-service nothing.
 * Dataset events invalidate it; the expiry only bounds how long a lost event can leave it wrong. Absence is cached
 * too (a training job probing for files that are not there must not hammer the metadata-service).
 * Every method blocks on a miss: call it off the event loop.
 */
@ApplicationScoped
public class NearCache {

    private static final Duration EXPIRY = Duration.ofMinutes(1);

    private final MetadataClient metadata;
    private final Cache<String, Optional<Dataset>> datasets = Caffeine.newBuilder()
            .maximumSize(10_000).expireAfterWrite(EXPIRY).build();
    private final Cache<FileKey, Optional<FileInfo>> files = Caffeine.newBuilder()
            .maximumSize(1_000_000).expireAfterWrite(EXPIRY).build();

    NearCache(@RestClient MetadataClient metadata) {
        this.metadata = metadata;
    }

    private record FileKey(String dataset, String path) {
    }

    public Optional<Dataset> dataset(String name) {
        return datasets.get(name, metadata::findDataset);
    }

    /** @param path a normalised dataset path */
    public Optional<FileInfo> file(String dataset, String path) {
        return files.get(new FileKey(dataset, path), key -> metadata.findFile(key.dataset(), key.path()));
    }

    /** The dataset as cached now, without asking (the definition an event is about to replace). */
    public Optional<Dataset> cachedDataset(String name) {
        Optional<Dataset> cached = datasets.getIfPresent(name);
        return cached == null ? Optional.empty() : cached;
    }

    /** The file as cached now, without asking: a warm read resolves on the event loop. */
    public Optional<FileInfo> cachedFile(String dataset, String path) {
        Optional<FileInfo> cached = files.getIfPresent(new FileKey(dataset, path));
        return cached == null ? Optional.empty() : cached;
    }

    /** What the gateway itself just learnt (after a write), so its own next read needs no lookup. */
    public void put(String dataset, FileInfo info) {
        files.put(new FileKey(dataset, info.path()), Optional.of(info));
    }

    public void forgetFile(String dataset, String path) {
        files.invalidate(new FileKey(dataset, path));
    }

    /** The dataset changed (updated, synced, deleted): its definition and every cached stat of it go. */
    public void forgetDataset(String name) {
        datasets.invalidate(name);
        files.asMap().keySet().removeIf(key -> key.dataset().equals(name));
    }
}
