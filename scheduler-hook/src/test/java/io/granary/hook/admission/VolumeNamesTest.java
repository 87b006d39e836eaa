package io.granary.hook.admission;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class VolumeNamesTest {

    @Test
    void aLongDatasetNameStillGivesADistinctDnsLabel() {
        assertThat(VolumeNames.forDataset("imagenet")).isEqualTo("granary-imagenet");
        String longName = "a".repeat(50) + "-" + "b".repeat(12);
        String other = "a".repeat(50) + "-" + "c".repeat(12);
        assertThat(VolumeNames.forDataset(longName)).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")
                .isNotEqualTo(VolumeNames.forDataset(other));
    }
}
