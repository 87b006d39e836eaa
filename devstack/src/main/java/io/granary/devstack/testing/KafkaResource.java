package io.granary.devstack.testing;

import io.granary.devstack.KafkaBroker;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A real Kafka broker for a Quarkus test: {@code @QuarkusTestResource(KafkaResource.class)}. Sets
 * {@code kafka.bootstrap.servers}, which the SmallRye Kafka connector and Kafka clients in the app pick up.
 */
public class KafkaResource implements QuarkusTestResourceLifecycleManager {

    private KafkaBroker broker;
    private Path dir;

    @Override
    public Map<String, String> start() {
        try {
            dir = Files.createTempDirectory("granary-kafka");
            broker = KafkaBroker.start(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.of("kafka.bootstrap.servers", broker.bootstrapServers());
    }

    @Override
    public void stop() {
        if (broker != null) {
            broker.kill();  // the tests are over and its files go next: a controlled stop would only take seconds
        }
        TempDirs.deleteQuietly(dir);
    }
}
