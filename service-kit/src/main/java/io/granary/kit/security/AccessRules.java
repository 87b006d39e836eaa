package io.granary.kit.security;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every guarded route of every service, with the role it needs and what part of the path names its dataset. One
 * table, so a review of who may do what reads one page; a route missing here is refused to all but Granary's own
 * services (and the access test, which walks every service's OpenAPI document, fails for it).
 */
public final class AccessRules {

    /** Which datasets a rule concerns. */
    public enum Scope {
        /** The dataset the path names: the caller must be allowed it. */
        DATASET,
        /** No one dataset (or all): only a caller allowed every dataset. */
        GLOBAL,
        /** Any caller with the role; the service itself narrows the answer or checks the dataset in the body. */
        OWN
    }

    /**
     * @param action what an audit record calls the call; null for calls that change nothing
     */
    public record Rule(String method, Pattern path, Role needs, Scope scope, String action) {

        /** @param template the path, {@code {name}} for the dataset, {@code *} for any one segment, {@code **} for the rest */
        static Rule of(String method, String template, Role needs, Scope scope, String action) {
            String regex = Pattern.quote(template).replace("{name}", "\\E(?<name>[^/]+)\\Q")
                    .replace("**", "\\E.+\\Q").replace("*", "\\E[^/]+\\Q");
            return new Rule(method, Pattern.compile(regex), needs, scope, action);
        }
    }

    /** A rule that matched a request, and the dataset its path names (null when none). */
    public record Match(Rule rule, String dataset) {
    }

    private static final String DATASETS = "/api/v1/datasets";
    private static final String DATALOADS = "/api/v1/dataloads";
    private static final String PLANS = "/api/v1/plans";

    private static final List<Rule> RULES = List.of(
            // metadata-service: datasets, their files and caches
            Rule.of("GET", DATASETS, Role.READER, Scope.OWN, null),
            Rule.of("POST", DATASETS, Role.ADMIN, Scope.GLOBAL, "dataset.create"),
            Rule.of("GET", DATASETS + "/{name}", Role.READER, Scope.DATASET, null),
            Rule.of("DELETE", DATASETS + "/{name}", Role.ADMIN, Scope.DATASET, "dataset.delete"),
            Rule.of("PUT", DATASETS + "/{name}/bucket", Role.ADMIN, Scope.DATASET, "dataset.bucket"),
            Rule.of("POST", DATASETS + "/{name}/sync", Role.ADMIN, Scope.DATASET, "dataset.sync"),
            Rule.of("DELETE", DATASETS + "/{name}/cache", Role.ADMIN, Scope.DATASET, "cache.free"),
            Rule.of("GET", DATASETS + "/{name}/nodes", Role.READER, Scope.DATASET, null),
            Rule.of("GET", DATASETS + "/{name}/files", Role.READER, Scope.DATASET, null),
            Rule.of("POST", DATASETS + "/{name}/files/**/refresh", Role.WRITER, Scope.DATASET, null),
            Rule.of("GET", DATASETS + "/{name}/files/**", Role.READER, Scope.DATASET, null),
            Rule.of("GET", "/api/v1/workers", Role.ADMIN, Scope.GLOBAL, null),
            Rule.of("POST", "/api/v1/workers/*/drain", Role.ADMIN, Scope.GLOBAL, "worker.drain"),
            Rule.of("DELETE", "/api/v1/workers/*/drain", Role.ADMIN, Scope.GLOBAL, "worker.rejoin"),
            // preload-service: a DataLoad's dataset is in its body or its record, which the service checks
            Rule.of("GET", DATALOADS, Role.READER, Scope.OWN, null),
            Rule.of("POST", DATALOADS, Role.WRITER, Scope.OWN, "dataload.start"),
            Rule.of("GET", DATALOADS + "/*", Role.READER, Scope.OWN, null),
            Rule.of("GET", DATALOADS + "/*/events", Role.READER, Scope.OWN, null),
            Rule.of("DELETE", DATALOADS + "/*", Role.WRITER, Scope.OWN, "dataload.cancel"),
            // preload-service: a reader tells its own read order; the plan's dataset is in its body or record
            Rule.of("GET", PLANS, Role.READER, Scope.OWN, null),
            Rule.of("POST", PLANS, Role.READER, Scope.OWN, null),
            Rule.of("GET", PLANS + "/*", Role.READER, Scope.OWN, null),
            Rule.of("DELETE", PLANS + "/*", Role.READER, Scope.OWN, "plan.end"),
            // block-service: a worker's blocks are Granary's own business; its usage is an admin's
            Rule.of("GET", "/blocks/stats", Role.ADMIN, Scope.GLOBAL, null),
            Rule.of("GET", "/blocks/*/*", Role.CLUSTER, Scope.GLOBAL, null),
            Rule.of("HEAD", "/blocks/*/*", Role.CLUSTER, Scope.GLOBAL, null),
            Rule.of("PUT", "/blocks/*/*", Role.CLUSTER, Scope.GLOBAL, null),
            Rule.of("POST", "/blocks/fill", Role.CLUSTER, Scope.GLOBAL, null),
            Rule.of("POST", "/blocks/*/reads", Role.CLUSTER, Scope.GLOBAL, null),
            Rule.of("POST", "/blocks/*/held", Role.CLUSTER, Scope.GLOBAL, null),
            Rule.of("DELETE", "/blocks/*", Role.CLUSTER, Scope.GLOBAL, "cache.free"),
            Rule.of("PUT", "/worker/plans/*", Role.CLUSTER, Scope.GLOBAL, null),
            Rule.of("GET", "/worker/plans/*", Role.CLUSTER, Scope.GLOBAL, null),
            Rule.of("DELETE", "/worker/plans/*", Role.CLUSTER, Scope.GLOBAL, null),
            Rule.of("POST", "/worker/drain", Role.CLUSTER, Scope.GLOBAL, null),
            Rule.of("GET", "/worker/drain", Role.CLUSTER, Scope.GLOBAL, null),
            Rule.of("DELETE", "/worker/drain", Role.CLUSTER, Scope.GLOBAL, null));

    private AccessRules() {
    }

    /** The first rule for the method and (normalised) path. */
    public static Optional<Match> match(String method, String path) {
        for (Rule rule : RULES) {
            if (rule.method().equals(method)) {
                Matcher matcher = rule.path().matcher(path);
                if (matcher.matches()) {
                    return Optional.of(new Match(rule, rule.scope() == Scope.DATASET ? matcher.group("name") : null));
                }
            }
        }
        return Optional.empty();
    }
}
