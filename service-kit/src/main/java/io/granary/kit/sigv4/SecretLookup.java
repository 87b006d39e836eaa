package io.granary.kit.sigv4;

import java.util.Optional;

/** The secret key of an access key, if the key exists. */
@FunctionalInterface
public interface SecretLookup {
    Optional<String> secretKey(String accessKeyId);
}
