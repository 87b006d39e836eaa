package io.granary.contracts.dataset;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class MountedPathTest {

    private final Mount root = new Mount("s3://train/imagenet", null, null, "minio");
    private final Mount val = new Mount("s3://val/imagenet", "val", null, "minio");

    @Test
    void aNamedMountHoldsThePathsUnderItsName() {
        assertThat(MountedPath.resolve(List.of(root, val), "val/n01/x.jpg"))
                .isEqualTo(new MountedPath(val, "n01/x.jpg"));
    }

    @Test
    void everyOtherPathBelongsToTheRootMount() {
        List<Mount> mounts = List.of(val, root);
        assertThat(MountedPath.resolve(mounts, "train/x.jpg")).isEqualTo(new MountedPath(root, "train/x.jpg"));
        assertThat(MountedPath.resolve(mounts, "valid/x.jpg")).as("a longer name is another directory")
                .isEqualTo(new MountedPath(root, "valid/x.jpg"));
        assertThat(MountedPath.resolve(mounts, "val")).as("the file 'val' is not the mount's directory")
                .isEqualTo(new MountedPath(root, "val"));
    }

    @Test
    void withoutARootMountOtherPathsAreNowhere() {
        assertThat(MountedPath.resolve(List.of(val), "train/x.jpg")).isNull();
    }
}
