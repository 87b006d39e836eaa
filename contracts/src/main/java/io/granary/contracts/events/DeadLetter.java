package io.granary.contracts.events;

/**
 * A record on {@code granary.deadletter}: the original key and value untouched, so it can be replayed once fixed,
 * and where it came from and why it failed in these headers (the names SmallRye Reactive Messaging's
 * dead-letter-queue strategy writes, so every service's consumers agree).
 */
public record DeadLetter(String topic, int partition, long offset, String key, String value, String reason) {

    public static final String REASON_HEADER = "dead-letter-reason";
    public static final String CAUSE_HEADER = "dead-letter-cause";
    public static final String TOPIC_HEADER = "dead-letter-topic";
    public static final String PARTITION_HEADER = "dead-letter-partition";
    public static final String OFFSET_HEADER = "dead-letter-offset";
}
