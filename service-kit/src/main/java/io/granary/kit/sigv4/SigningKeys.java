package io.granary.kit.sigv4;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.time.Duration;

/**
 * Signing keys by secret, date and region. A key is four chained HMACs that change once a day per access key, so
 * every request of that day reuses it instead of deriving it again. The keys handed out are shared: never changed.
 */
final class SigningKeys {

    /** The secret itself is part of the key, so a secret replaced under the same access key id derives a new key. */
    private record Scope(String secretKey, String date, String region) {
    }

    private final Cache<Scope, byte[]> keys = Caffeine.newBuilder()
            .maximumSize(1_000)
            .expireAfterAccess(Duration.ofDays(2))
            .build();

    byte[] of(String secretKey, String date, String region) {
        return keys.get(new Scope(secretKey, date, region), scope -> SigV4Crypto.signingKey(scope.secretKey(),
                scope.date(), scope.region()));
    }
}
