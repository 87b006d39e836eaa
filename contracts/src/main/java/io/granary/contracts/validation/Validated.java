package io.granary.contracts.validation;

/**
 * A record that checks itself: what arrives over REST or Kafka is validated before it is used, the first bad field
 * named in a {@link ValidationException}.
 *
 * @param <T> the record itself
 */
public interface Validated<T> {

    /** @return the record, normalised where it has defaults; never a half-checked one */
    T validate();
}
