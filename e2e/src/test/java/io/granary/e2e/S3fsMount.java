package io.granary.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A bucket of the gateway mounted with s3fs-fuse, as a POSIX reader without Granary's own FUSE client gets it.
 * s3fs runs in the foreground so this class owns its process.
 */
final class S3fsMount implements AutoCloseable {

    private final Path mountPoint;
    private final Process s3fs;

    private S3fsMount(Path mountPoint, Process s3fs) {
        this.mountPoint = mountPoint;
        this.s3fs = s3fs;
    }

    static boolean available() {
        return Files.isExecutable(Path.of("/usr/bin/s3fs")) && Files.exists(Path.of("/dev/fuse"));
    }

    static S3fsMount mount(String bucket, String endpoint, String accessKey, String secretKey, Path work)
            throws IOException, InterruptedException {
        Path mountPoint = Files.createDirectories(work.resolve("mnt-" + bucket));
        Path password = work.resolve("s3fs-passwd");
        Files.writeString(password, accessKey + ":" + secretKey);
        Files.setPosixFilePermissions(password, PosixFilePermissions.fromString("rw-------"));
        Process s3fs = new ProcessBuilder("s3fs", bucket, mountPoint.toString(), "-f",
                "-o", "url=" + endpoint, "-o", "use_path_request_style", "-o", "endpoint=us-east-1",
                "-o", "passwd_file=" + password, "-o", "stat_cache_expire=60")
                .redirectErrorStream(true).redirectOutput(work.resolve("s3fs.log").toFile()).start();
        S3fsMount mount = new S3fsMount(mountPoint, s3fs);
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (!mount.mounted()) {
            if (!s3fs.isAlive() || Instant.now().isAfter(deadline)) {
                mount.close();
                throw new IllegalStateException("s3fs did not mount " + bucket + ":\n" + Launcher.tail(work.resolve("s3fs.log")));
            }
            Thread.sleep(200);
        }
        return mount;
    }

    Path root() {
        return mountPoint;
    }

    private boolean mounted() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                .map(line -> line.split(" "))
                .anyMatch(fields -> fields.length > 2 && fields[1].equals(mountPoint.toString()) && fields[2].startsWith("fuse"));
    }

    @Override
    public void close() throws IOException, InterruptedException {
        // fusermount3 (with fuse3, which s3fs depends on) unmounts as any user; umount only as root.
        String unmount = Files.isExecutable(Path.of("/usr/bin/fusermount3")) ? "fusermount3" : "umount";
        List<String> command = unmount.equals("umount") ? List.of("umount", mountPoint.toString())
                : List.of(unmount, "-u", mountPoint.toString());
        new ProcessBuilder(command).redirectErrorStream(true).start().waitFor(30, TimeUnit.SECONDS);
        if (!s3fs.waitFor(30, TimeUnit.SECONDS)) {
            s3fs.destroyForcibly();
        }
    }
}
