package io.granary.kit.security;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.kit.config.GranaryConfig;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The identities that may call Granary, from the access secret's {@code identities.json}:
 * <pre>{"identities": [{"name": "team-a", "role": "reader", "datasets": ["imagenet"], "credentialsRef": "team-a"},
 *                  {"name": "trainer", "role": "writer", "serviceAccount": "system:serviceaccount:ml:trainer"}]}</pre>
 * An identity's own secret ({@code credentialsRef}) holds its S3 keys ({@code accessKey}, {@code secretKey}) and/or
 * a bearer {@code token}; the file names secrets, never holds them. Read again every {@code reload}, so a key or
 * role changes without a restart; a file that does not parse leaves the identities as they were.
 */
@Startup
@ApplicationScoped
public class AccessList {

    private static final Logger LOG = Logger.getLogger(AccessList.class);

    /** The identities' credentials, each one snapshot read whole. */
    private record Snapshot(Map<String, Keyed> byAccessKey, Map<String, Caller> byTokenHash,
                            Map<String, Caller> byServiceAccount, Map<String, Caller> byName, String source,
                            List<String> warnings) {
    }

    /** A caller and the secret key that signs for it. */
    public record Keyed(Caller caller, String secretKey) {
    }

    record IdentitySpec(String name, String role, List<String> datasets, String credentialsRef,
                        String serviceAccount) {
    }

    record IdentitiesFile(List<IdentitySpec> identities) {
    }

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final SecretFiles secrets;
    private final String accessRef;
    private final ScheduledExecutorService reloader;
    private volatile Snapshot current = new Snapshot(Map.of(), Map.of(), Map.of(), Map.of(), "", List.of());

    @Inject
    AccessList(GranaryConfig shared, SecurityConfig config) {
        this(new SecretFiles(shared.secretsDir().orElse(null), System.getenv()), config.accessRef());
        long every = Math.max(1, config.reload().toMillis());
        reloader.scheduleWithFixedDelay(this::reload, every, every, TimeUnit.MILLISECONDS);
    }

    public AccessList(SecretFiles secrets, String accessRef) {
        this.secrets = secrets;
        this.accessRef = accessRef;
        this.reloader = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "granary-access-reload");
            thread.setDaemon(true);
            return thread;
        });
        reload();
        if (current.byName().isEmpty()) {
            LOG.warnf("no identities in %s: only Granary's own services can call this one",
                    secrets.where(accessRef, "identities.json"));
        }
    }

    /** Reads the identities again; what fails to read is logged (never a secret) and changes nothing. */
    public void reload() {
        try {
            String source = secrets.read(accessRef, "identities.json").orElse("{\"identities\":[]}");
            Snapshot next = parse(source);
            if (!next.equals(current)) {
                if (!current.source().isEmpty()) {
                    LOG.infof("identities changed: %d now", next.byName().size());
                }
                next.warnings().forEach(LOG::warn);  // once a change, not once a reload
                current = next;
            }
        } catch (RuntimeException e) {
            LOG.errorf("identities in secret '%s' not (re)loaded, the previous ones stay: %s", accessRef,
                    e.getMessage());
        }
    }

    private Snapshot parse(String source) {
        IdentitiesFile file;
        try {
            file = JSON.readValue(source, IdentitiesFile.class);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("identities.json is not valid: " + e.getOriginalMessage());
        }
        Map<String, Keyed> byAccessKey = new HashMap<>();
        Map<String, Caller> byToken = new HashMap<>();
        Map<String, Caller> byServiceAccount = new HashMap<>();
        Map<String, Caller> byName = new HashMap<>();
        List<String> warnings = new ArrayList<>();
        for (IdentitySpec spec : file.identities() == null ? List.<IdentitySpec>of() : file.identities()) {
            if (spec.name() == null || spec.name().isBlank()) {
                throw new IllegalArgumentException("identities.json: an identity without a name");
            }
            Caller caller = new Caller(spec.name(), Role.parse(spec.role()),
                    Set.copyOf(spec.datasets() == null ? List.of() : spec.datasets()));
            if (byName.put(spec.name(), caller) != null) {
                throw new IllegalArgumentException("identities.json: two identities named '" + spec.name() + "'");
            }
            if (spec.credentialsRef() != null) {
                Optional<String> accessKey = secrets.read(spec.credentialsRef(), "accessKey");
                Optional<String> secretKey = secrets.read(spec.credentialsRef(), "secretKey");
                if (accessKey.isPresent() && secretKey.isPresent()) {
                    byAccessKey.put(accessKey.get(), new Keyed(caller, secretKey.get()));
                }
                secrets.read(spec.credentialsRef(), "token").ifPresent(token -> byToken.put(hash(token), caller));
                if (accessKey.isEmpty() && secrets.read(spec.credentialsRef(), "token").isEmpty()) {
                    warnings.add("identity '" + spec.name() + "': secret '" + spec.credentialsRef()
                            + "' has neither keys nor a token here");
                }
            }
            if (spec.serviceAccount() != null) {
                byServiceAccount.put(spec.serviceAccount(), caller);
            }
        }
        return new Snapshot(Map.copyOf(byAccessKey), Map.copyOf(byToken), Map.copyOf(byServiceAccount),
                Map.copyOf(byName), source, List.copyOf(warnings));
    }

    public Optional<Keyed> byAccessKey(String accessKeyId) {
        return Optional.ofNullable(current.byAccessKey().get(accessKeyId));
    }

    /** Tokens are compared by their SHA-256, so a lookup's time tells nothing of a token's characters. */
    public Optional<Caller> byToken(String token) {
        return Optional.ofNullable(current.byTokenHash().get(hash(token)));
    }

    /** A Kubernetes user name, as TokenReview answers it ({@code system:serviceaccount:NS:NAME}). */
    public Optional<Caller> byServiceAccount(String username) {
        return Optional.ofNullable(current.byServiceAccount().get(username));
    }

    /** The identity a Granary service acts for (it names it when it forwards a caller's request). */
    public Optional<Caller> byName(String name) {
        return Optional.ofNullable(current.byName().get(name));
    }

    static String hash(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @PreDestroy
    void stop() {
        reloader.shutdownNow();
    }
}
