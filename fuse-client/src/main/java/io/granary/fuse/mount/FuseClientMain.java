package io.granary.fuse.mount;

import io.granary.contracts.block.ByteSize;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.validation.ValidationException;
import io.granary.fuse.config.FuseConfig;
import io.granary.fuse.metrics.FuseMetrics;
import io.granary.fuse.read.BlockReads;
import io.granary.fuse.tree.Namespace;
import io.granary.fuse.write.Checkpoints;
import io.granary.kit.client.MetadataClient;
import io.granary.kit.config.GranaryConfig;
import io.granary.kit.rest.DatasetNotFoundException;
import io.granary.kit.security.SecretException;
import io.granary.kit.security.SecretFiles;
import io.granary.ufs.Credentials;
import io.granary.ufs.MountedStores;
import io.quarkus.arc.ClientProxy;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Mounts the dataset (or every dataset) at the mount point, serves it until the process is told to stop, then
 * unmounts. What makes a mount impossible is said in one line on stderr, with a non-zero exit, and nothing is left
 * mounted.
 */
@QuarkusMain
public class FuseClientMain implements QuarkusApplication {

    private static final Logger LOG = Logger.getLogger(FuseClientMain.class);

    @Inject
    FuseConfig config;
    @Inject
    GranaryConfig shared;
    @Inject
    @RestClient
    MetadataClient metadata;
    @Inject
    Namespace namespace;
    @Inject
    BlockReads reads;
    @Inject
    FuseMetrics metrics;
    @Inject
    MountedStores stores;

    @Override
    public int run(String... args) throws Exception {
        Path mountPoint = config.mountPoint().toAbsolutePath();
        long kernelReadAhead;
        try {
            kernelReadAhead = ByteSize.parse("granary.fuse.kernel-read-ahead", config.kernelReadAhead());
        } catch (ValidationException e) {
            System.err.println("granary-fuse: " + e.getMessage());
            return 2;
        }
        detachDeadMount(mountPoint);
        String refused = refusal(mountPoint);
        if (refused != null) {
            System.err.println("granary-fuse: " + refused);
            return 2;
        }
        Checkpoints checkpoints;
        try {
            checkpoints = checkpoints();
        } catch (SecretException e) {
            System.err.println("granary-fuse: " + e.getMessage());
            return 2;
        }
        prepare(checkpoints);
        // The parts themselves, not their CDI proxies: every FUSE call goes straight to them.
        GranaryFs fs = new GranaryFs(ClientProxy.unwrap(namespace), ClientProxy.unwrap(reads), checkpoints);
        try {
            fs.mount(mountPoint, false, false, options(checkpoints == null));
        } catch (RuntimeException e) {
            System.err.println("granary-fuse: cannot mount " + mountPoint + ": " + e.getMessage());
            return 2;
        }
        kernelReadAhead(mountPoint, kernelReadAhead);
        LOG.infof("mounted %s at %s (%s)", config.dataset().map(d -> "dataset " + d).orElse("every dataset"),
                mountPoint, checkpoints == null ? "read-only" : "read and write");
        try {
            Quarkus.waitForExit();
        } finally {
            fs.umount();
            if (checkpoints != null) {
                checkpoints.close();
            }
        }
        return 0;
    }

    /**
     * Starts, in the background while the mount is made, the clients a mount otherwise starts at a bad moment: the
     * under-store's, which reads around a failed worker first use at that worker's failure (a store this node cannot
     * reach is said), and which a job moved off a cut node needs at its first read; then the gateway's S3 client for
     * checkpoints, which took seconds of a new mount's start when built before it.
     */
    private void prepare(Checkpoints checkpoints) {
        Thread prepare = new Thread(() -> {
            prepareReadsAround();
            if (checkpoints != null) {
                checkpoints.prepare();
            }
        }, "prepare");
        prepare.setDaemon(true);
        prepare.start();
    }

    private void prepareReadsAround() {
        long started = System.nanoTime();
        try {
            List<Dataset> datasets = config.dataset().map(name -> List.of(metadata.dataset(name)))
                    .orElseGet(metadata::datasets);
            stores.prepare(datasets.stream().flatMap(dataset -> dataset.spec().mounts().stream()).distinct()
                    .toList());
            LOG.debugf("under-stores ready for reads around workers in %d ms",
                    (System.nanoTime() - started) / 1_000_000);
        } catch (RuntimeException e) {
            LOG.warnf("the under-store cannot be read from this node (%s): a read whose workers fail will fail",
                    e.getMessage());
        }
    }

    /** Why this mount cannot be made, fit for one line; null when it can. */
    private String refusal(Path mountPoint) throws IOException {
        if (!Files.exists(Path.of("/dev/fuse"))) {
            return "no /dev/fuse on this machine: FUSE is not available (load the fuse module, or run privileged)";
        }
        if (!Files.isDirectory(mountPoint)) {
            return "mount point " + mountPoint + " is not a directory";
        }
        if (mounted(mountPoint)) {
            return "mount point " + mountPoint + " is busy: something is mounted there already";
        }
        try (Stream<Path> entries = Files.list(mountPoint)) {
            if (entries.findAny().isPresent()) {
                return "mount point " + mountPoint + " is not empty";
            }
        }
        if (config.dataset().isPresent() && metadata.findDataset(config.dataset().get()).isEmpty()) {
            return DatasetNotFoundException.message(config.dataset().get()) + " (GET /api/v1/datasets lists them)";
        }
        return null;
    }

    /**
     * A Granary mount whose client died (killed, out of memory, its container restarted) answers every call with
     * "transport endpoint is not connected" until it is detached. It is detached lazily (files still open on it are
     * let go when they are closed), so that this client can mount in its place and pods, through mount propagation,
     * see the new mount. Only a dead mount of ours is touched: a live one stays, and is refused as busy.
     */
    private static void detachDeadMount(Path mountPoint) throws IOException, InterruptedException {
        if (!MountTable.granaryAt(mountPoint)) {
            return;
        }
        try {
            answers(mountPoint);
            return;  // a live mount answers (a hung one blocks): never ours to take away
        } catch (IOException dead) {
            LOG.infof("detaching the dead Granary mount at %s (%s)", mountPoint, dead.getMessage());
        }
        String target = mountPoint.normalize().toString();
        Process detach = new ProcessBuilder("fusermount", "-uz", target).redirectErrorStream(true).start();
        if (detach.waitFor() != 0) {
            new ProcessBuilder("umount", "-l", target).redirectErrorStream(true).start().waitFor();
        }
    }

    /**
     * Asks the mount itself, through statfs: the kernel answers a stat from its attribute cache for as long as
     * {@code attr-timeout}, a dead mount's too, but sends every statfs to the client.
     *
     * @throws IOException when the mount is dead ("transport endpoint is not connected")
     */
    static void answers(Path mountPoint) throws IOException {
        Files.getFileStore(mountPoint).getTotalSpace();
    }

    private static boolean mounted(Path mountPoint) throws IOException {
        return MountTable.at(mountPoint.toRealPath()).isPresent();
    }

    private Checkpoints checkpoints() throws IOException {
        if (config.writes().credentialsRef().isEmpty()) {
            return null;
        }
        SecretFiles secrets = new SecretFiles(shared.secretsDir().orElse(null), System.getenv());
        String ref = config.writes().credentialsRef().get();
        Credentials credentials = new Credentials(secrets.require(ref, "accessKey"), secrets.require(ref, "secretKey"));
        return new Checkpoints(config.writes().gatewayUrl(), credentials, config.writes().stagingDir(), metrics);
    }

    /**
     * Sets the kernel's read-ahead window of the mount, through its backing device in sysfs. The kernel takes the
     * window libfuse offers at mount time only up to its own default (128 KiB); root may widen it afterwards. Not
     * fatal: without it sequential reads are slower, not wrong.
     */
    private static void kernelReadAhead(Path mountPoint, long bytes) throws IOException, InterruptedException {
        if (bytes <= 0) {
            return;
        }
        // libfuse mounts on a thread of its own, and its answer to the kernel's INIT resets the window: wait until
        // the mount is there, then ask it, which the kernel holds until INIT is answered.
        Optional<MountTable.Entry> mount = MountTable.at(mountPoint).filter(MountTable.Entry::granary);
        for (int waited = 0; mount.isEmpty(); waited++) {
            if (waited == 200) {
                LOG.warnf("%s is not mounted after 10 s: its kernel read-ahead stays as it was", mountPoint);
                return;
            }
            Thread.sleep(50);
            mount = MountTable.at(mountPoint).filter(MountTable.Entry::granary);
        }
        try {
            answers(mountPoint);
            Files.writeString(Path.of("/sys/class/bdi", mount.get().device(), "read_ahead_kb"),
                    Long.toString(bytes / 1024));
        } catch (IOException | RuntimeException e) {
            LOG.warnf("the kernel's read-ahead of %s stays as it was (%s): sequential reads are slower",
                    mountPoint, e.getMessage());
        }
    }

    /** libfuse options: long kernel caches (events keep ours honest), reads as large as libfuse 2 takes. */
    private String[] options(boolean readOnly) {
        long timeout = config.attrTimeout().toSeconds();
        List<String> options = new ArrayList<>(List.of(
                "-o", "fsname=granary" + config.dataset().map(d -> ":" + d).orElse(""),
                "-o", "subtype=granary",  // MountTable.GRANARY: how a dead mount is known for ours
                "-o", "allow_other",
                "-o", "attr_timeout=" + timeout,
                "-o", "entry_timeout=" + timeout,
                "-o", "negative_timeout=1",
                "-o", "auto_cache",
                "-o", "max_read=" + GranaryFs.MAX_REQUEST,
                "-o", "max_background=" + config.backgroundRequests(),
                "-o", "congestion_threshold=" + config.backgroundRequests() * 3 / 4,
                "-o", "big_writes"));  // writes of up to 128 KiB, not 4 KiB
        if (readOnly) {
            options.addAll(List.of("-o", "ro"));
        }
        return options.toArray(String[]::new);
    }
}
