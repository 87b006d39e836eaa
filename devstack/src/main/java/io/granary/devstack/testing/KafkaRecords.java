package io.granary.devstack.testing;

import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.List;

/** What a test reads back from a topic. */
public final class KafkaRecords {

    private KafkaRecords() {
    }

    /**
     * Every record of {@code topic} so far, read up to its end offsets: a read for a fixed time would wait all of it
     * out, seconds on every call of an {@code await} loop. The end offsets count the records: no topic here is
     * compacted or written in transactions.
     */
    public static List<ConsumerRecord<String, String>> all(KafkaCompanion kafka, String topic) {
        if (!kafka.topics().list().contains(topic)) {
            return List.of();
        }
        long count = kafka.topics().describe(topic).get(topic).partitions().stream().mapToLong(partition -> kafka
                .offsets().get(new TopicPartition(topic, partition.partition()), OffsetSpec.latest()).offset()).sum();
        return count == 0 ? List.of()
                : kafka.consumeStrings().fromTopics(topic, count, Duration.ofSeconds(30)).awaitCompletion().getRecords();
    }
}
