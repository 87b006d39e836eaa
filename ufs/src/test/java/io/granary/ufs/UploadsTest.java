package io.granary.ufs;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The multipart rules both stores share, without a store. */
class UploadsTest {

    @Test
    void quotesAroundAnEtagAreDropped() {
        assertThat(new UploadedPart(1, "\"abc\"").etag()).isEqualTo("abc");
        assertThat(new UploadedPart(1, "abc").etag()).isEqualTo("abc");
        assertThat(new UploadedPart(1, "\"").etag()).isEqualTo("\"");
        assertThatThrownBy(() -> new UploadedPart(1, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void partNumbersAndSizesHaveS3sBounds() {
        Uploads.checkPart(1, 0);
        Uploads.checkPart(UnderStore.MAX_PART_NUMBER, UnderStore.MAX_PART_SIZE);
        assertThatThrownBy(() -> Uploads.checkPart(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Uploads.checkPart(UnderStore.MAX_PART_NUMBER + 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Uploads.checkPart(1, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Uploads.checkPart(1, UnderStore.MAX_PART_SIZE + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void partsAreNamedInStrictlyAscendingOrder() {
        Uploads.checkOrder(List.of(new UploadedPart(2, "a"), new UploadedPart(7, "b")), "k");
        for (List<UploadedPart> parts : List.of(
                List.of(new UploadedPart(2, "a"), new UploadedPart(1, "b")),
                List.of(new UploadedPart(1, "a"), new UploadedPart(1, "a")),
                List.of(new UploadedPart(0, "a")))) {
            assertThatThrownBy(() -> Uploads.checkOrder(parts, "k")).isInstanceOf(InvalidPartException.class)
                    .extracting(e -> ((InvalidPartException) e).reason())
                    .isEqualTo(InvalidPartException.Reason.INVALID_PART_ORDER);
        }
        assertThatThrownBy(() -> Uploads.checkOrder(List.of(), "k")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Uploads.checkOrder(null, "k")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void reasonsNameTheS3ErrorCodes() {
        assertThat(InvalidPartException.Reason.INVALID_PART.s3Code()).isEqualTo("InvalidPart");
        assertThat(InvalidPartException.Reason.INVALID_PART_ORDER.s3Code()).isEqualTo("InvalidPartOrder");
        assertThat(InvalidPartException.Reason.ENTITY_TOO_SMALL.s3Code()).isEqualTo("EntityTooSmall");
    }
}
