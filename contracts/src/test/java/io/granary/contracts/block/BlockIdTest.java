package io.granary.contracts.block;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BlockIdTest {

    @Test
    void isDerivedFromDatasetPathEtagAndIndex() {
        BlockId id = BlockId.of("imagenet", "train/a.jpg", "9b2cf535f27731c974343645a3985328", 3);

        // Golden value (also what python's hashlib gives): any service, in any JVM, names this block the same.
        assertThat(id.toString()).isEqualTo("d4013a12d63614dfbdd526058351e845-3");
        assertThat(BlockId.of("imagenet", "train/a.jpg", "9b2cf535f27731c974343645a3985328", 3)).isEqualTo(id);
    }

    @Test
    void aNewEtagOrAnotherDatasetGivesAnotherId() {
        BlockId id = BlockId.of("imagenet", "a", "v1", 0);
        assertThat(BlockId.of("imagenet", "a", "v2", 0)).isNotEqualTo(id);
        assertThat(BlockId.of("coco", "a", "v1", 0)).isNotEqualTo(id);
        assertThat(BlockId.of("imagenet", "a", "v1", 1).file()).isEqualTo(id.file());
        // the separator keeps ("ab", "c") apart from ("a", "bc")
        assertThat(BlockId.fileHash("dataset", "ab", "c")).isNotEqualTo(BlockId.fileHash("dataset", "a", "bc"));
    }

    @Test
    void parsesItsTextForm() {
        BlockId id = BlockId.of("imagenet", "a", "v1", 12);
        assertThat(BlockId.parse(id.toString())).isEqualTo(id);
        assertThatThrownBy(() -> BlockId.parse("../../etc/passwd")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BlockId.parse(id.file() + "--1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BlockId.parse(id.file().toUpperCase() + "-1")).isInstanceOf(IllegalArgumentException.class);
    }
}
