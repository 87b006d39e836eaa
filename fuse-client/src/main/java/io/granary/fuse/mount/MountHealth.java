package io.granary.fuse.mount;

import io.granary.fuse.config.FuseConfig;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Up while the mount answers: it is listed as Granary's and it answers a statfs within 5 seconds. A
 * mount that is gone, dead or hung is down, so that a supervisor (the kubelet's liveness probe) restarts the client,
 * which detaches the dead mount and mounts again.
 */
@Liveness
@Readiness
@ApplicationScoped
public class MountHealth implements HealthCheck {

    private static final long TIMEOUT_SECONDS = 5;

    private final Path mountPoint;

    MountHealth(FuseConfig config) {
        this.mountPoint = config.mountPoint().toAbsolutePath().normalize();
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named("mount").withData("mountPoint", mountPoint.toString());
        try {
            if (!MountTable.granaryAt(mountPoint)) {
                return response.down().withData("reason", "not mounted").build();
            }
            // On a thread of its own: a hung mount blocks the call, and the probe must still answer.
            CompletableFuture<Void> stat = new CompletableFuture<>();
            Thread probe = new Thread(() -> {
                try {
                    FuseClientMain.answers(mountPoint);
                    stat.complete(null);
                } catch (IOException e) {
                    stat.completeExceptionally(e);
                }
            }, "mount-health");
            probe.setDaemon(true);
            probe.start();
            stat.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            return response.up().build();
        } catch (TimeoutException e) {
            return response.down().withData("reason", "no answer in " + TIMEOUT_SECONDS + " s").build();
        } catch (ExecutionException e) {
            return response.down().withData("reason", String.valueOf(e.getCause().getMessage())).build();
        } catch (IOException e) {
            return response.down().withData("reason", String.valueOf(e.getMessage())).build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return response.down().withData("reason", "interrupted").build();
        }
    }
}
