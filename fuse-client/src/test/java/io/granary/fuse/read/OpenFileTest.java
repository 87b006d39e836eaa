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
}
