package io.granary.contracts.dataset;

import io.granary.contracts.validation.ValidationException;
import org.junit.jupiter.api.Test;

import static io.granary.contracts.dataset.DatasetPaths.normalize;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatasetPathsTest {

    @Test
    void normalisesToOneForm() {
        assertThat(normalize("path", "/train//a.jpg")).isEqualTo("train/a.jpg");
        assertThat(normalize("path", "train/")).isEqualTo("train/");
        assertThat(normalize("path", "/")).isEmpty();
        assertThat(normalize("path", null)).isEmpty();
        assertThat(normalize("path", "a..b/c")).isEqualTo("a..b/c");
    }

    @Test
    void refusesDotSegmentsAndControlCharacters() {
        assertThatThrownBy(() -> normalize("targets[0].path", "/train/../../etc")).isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("targets[0].path: ");
        assertThatThrownBy(() -> normalize("path", "./a")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> normalize("path", "a\0b")).isInstanceOf(ValidationException.class)
                .hasMessageContaining("control");
    }
}
