package io.granary.fuse.mount;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * This process's view of the kernel's mount table ({@code /proc/self/mountinfo}): what is mounted at a path, and on
 * which device, so a mount is found, told to be Granary's, and its sysfs entry named without decoding a dev_t.
 */
final class MountTable {

    /** The type a Granary mount has in the table: FUSE with the subtype the client mounts with. */
    static final String GRANARY = "fuse.granary";

    /** A mount: its device as {@code major:minor} and its filesystem type. */
    record Entry(String device, String type) {
        boolean granary() {
            return GRANARY.equals(type);
        }
    }

    private MountTable() {
    }

    /** The mount at {@code path}, the topmost where mounts are stacked; the path is taken as given, not resolved. */
    static Optional<Entry> at(Path path) throws IOException {
        String target = escaped(path.toAbsolutePath().normalize().toString());
        Entry found = null;
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            // id parent major:minor root mount-point options [optional fields...] - type source super-options
            String[] fields = line.split(" ");
            int separator = Arrays.asList(fields).indexOf("-");
            if (separator > 4 && separator + 1 < fields.length && fields[4].equals(target)) {
                found = new Entry(fields[2], fields[separator + 1]);
            }
        }
        return Optional.ofNullable(found);
    }

    /** A Granary mount, live or dead, is at {@code path}. */
    static boolean granaryAt(Path path) throws IOException {
        return at(path).filter(Entry::granary).isPresent();
    }

    /** As the kernel writes paths in the table: space, tab, newline and backslash in octal. */
    private static String escaped(String path) {
        return path.replace("\\", "\\134").replace(" ", "\\040").replace("\t", "\\011").replace("\n", "\\012");
    }
}
