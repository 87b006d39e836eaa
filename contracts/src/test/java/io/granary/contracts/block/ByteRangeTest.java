package io.granary.contracts.block;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ByteRangeTest {

    @Test
    void resolvesTheThreeForms() {
        assertThat(ByteRange.parse("bytes=10-19").resolve(100)).isEqualTo(new ByteRange.Slice(10, 10));
        assertThat(ByteRange.parse("bytes=90-").resolve(100)).isEqualTo(new ByteRange.Slice(90, 10));
        assertThat(ByteRange.parse("bytes=-30").resolve(100)).isEqualTo(new ByteRange.Slice(70, 30));
        assertThat(ByteRange.parse("bytes=-300").resolve(100)).isEqualTo(new ByteRange.Slice(0, 100));
        assertThat(ByteRange.parse("bytes=95-200").resolve(100)).as("clipped to the end")
                .isEqualTo(new ByteRange.Slice(95, 5));
        assertThat(ByteRange.parse("bytes=10-19").resolve(100).contentRange(100)).isEqualTo("bytes 10-19/100");
    }

    @Test
    void unsatisfiableRangesResolveToNothing() {
        assertThat(ByteRange.parse("bytes=100-").resolve(100)).isNull();
        assertThat(ByteRange.parse("bytes=-0").resolve(100)).isNull();
    }

    @Test
    void malformedOrMultipleRangesAreIgnored() {
        assertThat(ByteRange.parse(null)).isNull();
        assertThat(ByteRange.parse("bytes=5-2")).isNull();
        assertThat(ByteRange.parse("bytes=-")).isNull();
        assertThat(ByteRange.parse("bytes=0-1,5-6")).isNull();
        assertThat(ByteRange.parse("items=0-1")).isNull();
        assertThat(ByteRange.parse("bytes=99999999999999999999-")).isNull();
    }
}
