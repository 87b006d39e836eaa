package io.granary.kit.security;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class AccessRulesTest {

    @Test
    void aDatasetRouteNamesItsDatasetAndTheRoleItNeeds() {
        AccessRules.Match match = AccessRules.match("DELETE", "/api/v1/datasets/imagenet/cache").orElseThrow();
        assertThat(match.dataset()).isEqualTo("imagenet");
        assertThat(match.rule().needs()).isEqualTo(Role.ADMIN);
        assertThat(match.rule().action()).isEqualTo("cache.free");

        AccessRules.Match refresh = AccessRules.match("POST", "/api/v1/datasets/imagenet/files/a/b.jpg/refresh")
                .orElseThrow();
        assertThat(refresh.rule().needs()).isEqualTo(Role.WRITER);
        assertThat(AccessRules.match("GET", "/api/v1/datasets/imagenet/files/a/refresh").orElseThrow().rule().needs())
                .as("a file named refresh is read like any other").isEqualTo(Role.READER);
    }

    @Test
    void aWorkersBlocksAreGranarysOwnAndItsUsageAnAdmins() {
        assertThat(AccessRules.match("PUT", "/blocks/imagenet/0").orElseThrow().rule().needs()).isEqualTo(Role.CLUSTER);
        assertThat(AccessRules.match("GET", "/blocks/stats").orElseThrow().rule().needs()).isEqualTo(Role.ADMIN);
    }

    @Test
    void aRouteWithoutARuleMatchesNothing() {
        assertThat(AccessRules.match("PATCH", "/api/v1/datasets/imagenet")).isEmpty();
        assertThat(AccessRules.match("GET", "/api/v1/datasets/imagenet/secrets/x")).isEmpty();
        assertThat(AccessRules.match("GET", "/api/v2/datasets")).isEmpty();
    }

    @Test
    void aScopedCallerTouchesItsDatasetsAloneAndNothingDatasetWide() {
        Caller teamA = new Caller("team-a", Role.ADMIN, Set.of("a"));
        assertThat(teamA.may(Role.ADMIN, "a")).isTrue();
        assertThat(teamA.may(Role.ADMIN, "b")).isFalse();
        assertThat(teamA.may(Role.ADMIN, null)).as("a dataset-wide call").isFalse();
        Caller reader = new Caller("reader", Role.READER, Set.of());
        assertThat(reader.may(Role.READER, null)).isTrue();
        assertThat(reader.may(Role.WRITER, "a")).isFalse();
        assertThat(Caller.cluster().may(Role.CLUSTER, null)).isTrue();
    }
}
