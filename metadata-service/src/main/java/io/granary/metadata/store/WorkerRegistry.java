package io.granary.metadata.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.infinispan.Cache;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/** The cache workers, by id, replicated so that any replica answers {@code GET /api/v1/workers}. */
public final class WorkerRegistry {

    private final Cache<String, String> workers;
    private final ObjectMapper json;

    public WorkerRegistry(Cache<String, String> workers, ObjectMapper json) {
        this.workers = workers;
        this.json = json;
    }

    /** @return what was known of the worker before, if anything */
    public Optional<WorkerState> put(WorkerState state) {
        String previous = workers.put(state.worker().id(), CacheJson.write(json, state));
        return previous == null ? Optional.empty() : Optional.of(CacheJson.read(json, previous, WorkerState.class));
    }

    /**
     * Rewrites every worker {@code change} returns a new state for, unless a heartbeat wrote it meanwhile.
     *
     * @return the new states that were written
     */
    public List<WorkerState> updateEach(Function<WorkerState, Optional<WorkerState>> change) {
        List<WorkerState> written = new ArrayList<>();
        for (Map.Entry<String, String> entry : Map.copyOf(workers).entrySet()) {
            change.apply(CacheJson.read(json, entry.getValue(), WorkerState.class)).ifPresent(updated -> {
                if (workers.replace(entry.getKey(), entry.getValue(), CacheJson.write(json, updated))) {
                    written.add(updated);
                }
            });
        }
        return written;
    }

    public List<WorkerState> all() {
        return workers.values().stream().map(value -> CacheJson.read(json, value, WorkerState.class))
                .sorted(Comparator.comparing(state -> state.worker().id())).toList();
    }
}
