package io.granary.kit.events;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.events.DatasetEvent;
import io.granary.contracts.events.Topics;
import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.ValidationException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaEventsTest {

    private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
    private final KafkaEvents events = new KafkaEvents(new ObjectMapper().findAndRegisterModules(), metrics);
    private final List<DatasetEvent> handled = new ArrayList<>();

    @Test
    void aGoodMessageIsHandedOnAndCountedAsConsumed() {
        events.consume(Topics.DATASET_EVENTS, "{\"type\":\"SYNCED\",\"dataset\":\"imagenet\"}", DatasetEvent.class,
                handled::add);

        assertThat(handled).singleElement().satisfies(event -> {
            assertThat(event.type()).isEqualTo(DatasetEvent.Type.SYNCED);
            assertThat(event.dataset()).isEqualTo("imagenet");
        });
        assertThat(count("granary.events.consumed")).isEqualTo(1);
        assertThat(count("granary.events.deadlettered")).isZero();
    }

    @Test
    void whatDoesNotParseIsRefusedWithTheReasonAndCountedAsDeadLettered() {
        assertThatThrownBy(() -> events.consume(Topics.DATASET_EVENTS, "{not json", DatasetEvent.class, handled::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("not a DatasetEvent: ");
        assertThatThrownBy(() -> events.consume(Topics.DATASET_EVENTS, "null", DatasetEvent.class, handled::add))
                .isInstanceOf(ValidationException.class).hasMessage("value: is empty");

        assertThat(handled).isEmpty();
        assertThat(count("granary.events.deadlettered")).isEqualTo(2);
        assertThat(count("granary.events.consumed")).isZero();
    }

    @Test
    void anEventThatFailsItsValidationIsNeverHandedOn() {
        assertThatThrownBy(() -> events.consume(Topics.DATASET_EVENTS, "{\"dataset\":\"imagenet\"}",
                DatasetEvent.class, handled::add))
                .isInstanceOf(ValidationException.class).hasMessage("type: is required");

        assertThat(handled).isEmpty();
        assertThat(count("granary.events.deadlettered")).isEqualTo(1);
    }

    @Test
    void whatTheHandlerRefusesIsDeadLetteredToo() {
        assertThatThrownBy(() -> events.consume(Topics.DATASET_EVENTS, "{\"type\":\"DELETED\"}",
                DatasetEvent.class, event -> Check.required("dataset", event.dataset())))
                .isInstanceOf(ValidationException.class).hasMessage("dataset: is required");

        assertThat(count("granary.events.deadlettered")).isEqualTo(1);
    }

    private double count(String name) {
        var counter = metrics.find(name).tag("topic", Topics.DATASET_EVENTS).counter();
        return counter == null ? 0 : counter.count();
    }
}
