package io.granary.gateway.api;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.events.Topics;
import io.granary.kit.events.KafkaEvents;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;

import java.time.Duration;
import java.util.Optional;

/**
 * The last status each DataLoad published on {@code granary.preload.status} (every gateway reads every one, its own
 * consumer group): a load lives with the preload replica that took it, so while that replica restarts its status
 * has nowhere else to come from, and a caller polling it is answered from here, marked stale, instead of 503.
 */
@ApplicationScoped
public class PublishedStatuses {

    private final KafkaEvents events;
    private final Cache<String, DataLoadStatus> last = Caffeine.newBuilder().maximumSize(10_000)
            .expireAfterWrite(Duration.ofDays(1)).build();

    PublishedStatuses(KafkaEvents events) {
        this.events = events;
    }

    @Incoming(Topics.PRELOAD_STATUS)
    public void onStatus(String message) {
        events.consume(Topics.PRELOAD_STATUS, message, DataLoadStatus.class, status -> last.asMap()
                .merge(status.id(), status, (known, published) -> newer(known, published)));
    }

    public Optional<DataLoadStatus> last(String id) {
        return Optional.ofNullable(last.getIfPresent(id));
    }

    /** Events of one load come in order on its partition; a restarted replica's may repeat older ones. */
    private static DataLoadStatus newer(DataLoadStatus known, DataLoadStatus published) {
        return known.updatedAt() != null && published.updatedAt() != null
                && published.updatedAt().isBefore(known.updatedAt()) ? known : published;
    }
}
