package io.granary.block.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/** CRC32C of block files: the JDK's intrinsic (SSE4.2 / ARMv8 CRC instructions), several GB/s per core. */
final class Checksums {

    private static final int CHUNK = 1 << 20;

    private Checksums() {
    }

    static int crc32c(Path file) throws IOException {
        CRC32C crc = new CRC32C();
        ByteBuffer buffer = ByteBuffer.allocateDirect(CHUNK);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (channel.read(buffer) >= 0) {
                buffer.flip();
                crc.update(buffer);
                buffer.clear();
            }
        }
        return (int) crc.getValue();
    }
}
