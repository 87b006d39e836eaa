package io.granary.fuse.tree;

import io.granary.contracts.validation.ValidationException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MountPathsTest {

    @Test
    void aMountOfOneDatasetMapsEveryPathIntoIt() {
        assertThat(MountPaths.of("imagenet", "/")).isEqualTo(new MountPaths("imagenet", ""));
        assertThat(MountPaths.of("imagenet", "/train/a.jpg")).isEqualTo(new MountPaths("imagenet", "train/a.jpg"));
        assertThat(MountPaths.of("imagenet", "/train//a.jpg").path()).isEqualTo("train/a.jpg");
    }

    @Test
    void aMountOfEveryDatasetHasADirectoryPerDataset() {
        assertThat(MountPaths.of(null, "/").mountRoot()).isTrue();
        assertThat(MountPaths.of(null, "/imagenet")).isEqualTo(new MountPaths("imagenet", ""));
        assertThat(MountPaths.of(null, "/imagenet/train/a.jpg")).isEqualTo(new MountPaths("imagenet", "train/a.jpg"));
    }

    @Test
    void aPathThatLeavesTheDatasetIsRefused() {
        assertThatThrownBy(() -> MountPaths.of("imagenet", "/train/../../etc/passwd"))
                .isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> MountPaths.of(null, "/imagenet/../other/x")).isInstanceOf(ValidationException.class);
    }
}
