package io.granary.hook.admission;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/** Volume names are DNS labels of at most 63 characters, and a dataset name may already be 63 long. */
final class VolumeNames {

    private static final String PREFIX = "granary-";
    private static final int MAX = 63;

    private VolumeNames() {
    }

    static String forDataset(String dataset) {
        String name = PREFIX + dataset;
        if (name.length() <= MAX) {
            return name;
        }
        CRC32C crc = new CRC32C();
        crc.update(dataset.getBytes(StandardCharsets.UTF_8));
        String hash = HexFormat.of().toHexDigits((int) crc.getValue());
        String head = dataset.substring(0, MAX - PREFIX.length() - hash.length() - 1).replaceAll("-+$", "");
        return PREFIX + head + "-" + hash;
    }
}
