package io.granary.fuse.read;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class OpenFileTest {

    @Test
    void aReadThatStartsWhereTheLastEndedIsSequential() {
        OpenFile file = new OpenFile(null, null);

        assertThat(file.continues(0, 131072)).as("the first read, from the start").isTrue();
        assertThat(file.continues(131072, 131072)).isTrue();
        assertThat(file.continues(1 << 20, 4096)).as("a jump").isFalse();
        assertThat(file.continues((1 << 20) + 4096, 4096)).as("on from the jump").isTrue();
        assertThat(file.continues(0, 10)).as("back to the start").isFalse();
    }

    @Test
    void aBlockReadInPiecesIsEnteredOnce() {
        OpenFile file = new OpenFile(null, null);

        assertThat(file.entersBlock(0)).as("the first piece of block 0").isTrue();
        assertThat(file.entersBlock(0)).as("its next piece").isFalse();
        assertThat(file.entersBlock(1)).isTrue();
        assertThat(file.entersBlock(0)).as("back to block 0: read again").isTrue();
    }
}
