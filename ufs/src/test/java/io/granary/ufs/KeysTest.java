package io.granary.ufs;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeysTest {

    @Test
    void objectPathsAreNormalised() {
        assertThat(Keys.object("/a//b/./c.txt")).isEqualTo("a/b/c.txt");
        assertThat(Keys.object("a")).isEqualTo("a");
        assertThatThrownBy(() -> Keys.object("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Keys.object("/")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Keys.object("dir/")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Keys.object("a\0b")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void dotDotIsRefusedEvenWhenItStaysInside() {
        assertThatThrownBy(() -> Keys.object("a/../b")).isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> Keys.object("..")).isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> Keys.prefix("x/../../")).isInstanceOf(PathOutsideMountException.class);
        assertThat(Keys.object("a/..b/c..")).as("'..' inside a name is fine").isEqualTo("a/..b/c..");
    }

    @Test
    void prefixesKeepTheirTrailingSlash() {
        assertThat(Keys.prefix(null)).isEmpty();
        assertThat(Keys.prefix("/")).isEmpty();
        assertThat(Keys.prefix("/data//train/")).isEqualTo("data/train/");
        assertThat(Keys.prefix("data/tr")).isEqualTo("data/tr");
    }

    @Test
    void onlySlashIsADelimiterAndPagesAreCapped() {
        assertThat(Keys.delimited(null)).isFalse();
        assertThat(Keys.delimited("")).isFalse();
        assertThat(Keys.delimited("/")).isTrue();
        assertThatThrownBy(() -> Keys.delimited("-")).isInstanceOf(IllegalArgumentException.class);
        assertThat(Keys.pageSize(5000)).isEqualTo(UnderStore.MAX_PAGE);
        assertThatThrownBy(() -> Keys.pageSize(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void orderIsUtf8ByteOrderLikeS3() {
        List<String> keys = new ArrayList<>(List.of("a0", "a/x", "a.txt", "\uD83D\uDE00", "\uFFFD", "b"));
        keys.sort(Keys::compare);

        // String.compareTo would put the emoji (a surrogate pair) before U+FFFD; UTF-8 puts it after.
        assertThat(keys).containsExactly("a.txt", "a/x", "a0", "b", "\uFFFD", "\uD83D\uDE00");
    }
}
