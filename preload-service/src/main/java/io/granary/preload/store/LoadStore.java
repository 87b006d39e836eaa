package io.granary.preload.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.preload.config.PreloadConfig;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * DataLoads on disk, one JSON file each ({@code <data-dir>/loads/<id>.json}), replaced atomically, so a restart
 * finds every load it had accepted and resumes those that had not ended.
 */
@ApplicationScoped
public class LoadStore {

    private static final Logger LOG = Logger.getLogger(LoadStore.class);

    private final Path dir;
    private final ObjectMapper json;

    LoadStore(PreloadConfig config, ObjectMapper json) {
        this.dir = config.dataDir().resolve("loads");
        this.json = json;
    }

    /** Written and renamed into place before this returns: a request is acknowledged only once recorded. */
    public synchronized void save(LoadRecord load) {
        try {
            Files.createDirectories(dir);
            Path temp = dir.resolve("." + load.id() + ".tmp");
            json.writeValue(temp.toFile(), load);
            Files.move(temp, dir.resolve(load.id() + ".json"), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record DataLoad " + load.id() + " in " + dir, e);
        }
    }

    public List<LoadRecord> all() {
        List<LoadRecord> loads = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return loads;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
            for (Path file : files) {
                try {
                    loads.add(json.readValue(file.toFile(), LoadRecord.class));
                } catch (IOException e) {
                    LOG.warnf("skipping unreadable DataLoad record %s: %s", file, e.getMessage());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return loads;
    }
}
