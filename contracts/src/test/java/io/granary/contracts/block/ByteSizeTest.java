package io.granary.contracts.block;

import io.granary.contracts.validation.ValidationException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ByteSizeTest {

    @Test
    void parsesBinaryAndDecimalUnits() {
        assertThat(ByteSize.parse("16MiB")).isEqualTo(16L * 1024 * 1024);
        assertThat(ByteSize.parse("512KiB")).isEqualTo(512L * 1024);
        assertThat(ByteSize.parse("2GiB")).isEqualTo(2L << 30);
        assertThat(ByteSize.parse("100MB")).isEqualTo(100_000_000L);
        assertThat(ByteSize.parse("4096")).isEqualTo(4096);
        assertThat(ByteSize.parse(" 1 tib ")).isEqualTo(1L << 40);
        assertThat(ByteSize.parse("8m")).isEqualTo(8_000_000L);
    }

    @Test
    void namesTheFieldOfABadSize() {
        assertThatThrownBy(() -> ByteSize.parse("blockSize", "16 MiBs")).isInstanceOf(ValidationException.class)
                .hasMessage("blockSize: '16 MiBs' is not a size such as 16MiB, 512KiB or 4096");
        assertThatThrownBy(() -> ByteSize.parse("blockSize", "-1")).isInstanceOf(ValidationException.class);
        assertThatThrownBy(() -> ByteSize.parse("quota", "99999999999PiB")).isInstanceOf(ValidationException.class)
                .hasMessageContaining("too large");
        assertThatThrownBy(() -> ByteSize.parse("quota", null)).hasMessage("quota: is required");
    }

    @Test
    void formatsTheShortestExactForm() {
        assertThat(ByteSize.format(16L << 20)).isEqualTo("16MiB");
        assertThat(ByteSize.format(1500)).isEqualTo("1500B");
        assertThat(ByteSize.format(0)).isEqualTo("0B");
        assertThat(ByteSize.parse(ByteSize.format(3L << 40))).isEqualTo(3L << 40);
    }
}
