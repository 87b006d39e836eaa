package io.granary.contracts.dataload;

import io.granary.contracts.validation.ValidationException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DataLoadSpecTest {

    @Test
    void validationNormalisesPaths() {
        DataLoadSpec spec = new DataLoadSpec("imagenet", List.of(new Target("/train/", null)), List.of("/val//x.jpg"),
                false, null, null, 0).validate();

        assertThat(spec.targets()).containsExactly(new Target("train/", null));
        assertThat(spec.files()).containsExactly("val/x.jpg");
        assertThat(spec.policy()).isEqualTo(LoadPolicy.ONCE);
    }

    @Test
    void namesTheBadField() {
        assertField(load("Bad_Name", List.of(new Target("/", null)), List.of(), LoadPolicy.ONCE, null), "dataset");
        assertField(load("imagenet", List.of(), List.of(), LoadPolicy.ONCE, null), "targets");
        assertField(load("imagenet", List.of(new Target("/a/../..", null)), List.of(), LoadPolicy.ONCE, null),
                "targets[0].path");
        assertField(load("imagenet", List.of(new Target("/", 0)), List.of(), LoadPolicy.ONCE, null),
                "targets[0].replicas");
        assertField(load("imagenet", List.of(), List.of("dir/"), LoadPolicy.ONCE, null), "files[0]");
    }

    @Test
    void cronNeedsASchedule() {
        List<Target> all = List.of(new Target("/", null));
        assertField(load("imagenet", all, List.of(), LoadPolicy.CRON, null), "schedule");
        assertField(load("imagenet", all, List.of(), LoadPolicy.CRON, "every night"), "schedule");
        assertField(load("imagenet", all, List.of(), LoadPolicy.ONCE, "0 2 * * *"), "schedule");
        load("imagenet", all, List.of(), LoadPolicy.CRON, "0 2 * * MON-FRI").validate();
        load("imagenet", all, List.of(), LoadPolicy.CRON, "@hourly").validate();
    }

    @Test
    void aPreloadRequestNeedsARequestId() {
        PreloadRequest request = PreloadRequest.of(" ", load("imagenet", List.of(new Target("/", null)), List.of(),
                LoadPolicy.ONCE, null));
        assertThatThrownBy(request::validate).isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).field()).isEqualTo("requestId"));
        assertThatThrownBy(() -> PreloadRequest.of("a b", request.spec()).validate())
                .isInstanceOf(ValidationException.class).hasMessageStartingWith("requestId:");
    }

    private static DataLoadSpec load(String dataset, List<Target> targets, List<String> files, LoadPolicy policy,
                                     String schedule) {
        return new DataLoadSpec(dataset, targets, files, false, policy, schedule, 0);
    }

    private static void assertField(DataLoadSpec spec, String field) {
        assertThatThrownBy(spec::validate).isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).field()).isEqualTo(field));
    }
}
