package io.granary.hook.admission;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.granary.hook.client.CacheLocation;
import io.granary.hook.client.CacheLocator;
import io.granary.hook.config.HookConfig;
import io.granary.hook.datasets.DatasetResources;
import io.granary.hook.metrics.HookMetrics.Outcome;
import io.granary.hook.metrics.HookMetrics;
import io.micrometer.core.instrument.Timer;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The mutating admission webhook. It never denies and never blocks: whatever goes wrong on our side, the pod is
 * admitted, at worst unchanged. Only a review that is not one at all gets a 400.
 */
@Path(AdmissionResource.PATH)
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public class AdmissionResource {

    /** Pods that opt in with the dataset label. */
    public static final String PATH = "/mutate";
    /** Pods that use no dataset, in namespaces that opted in: kept off cache nodes. */
    public static final String SPARE_CACHE_NODES_PATH = PATH + "/spare-cache-nodes";

    private static final Logger LOG = Logger.getLogger(AdmissionResource.class);

    private final AdmissionReviews reviews = new AdmissionReviews();
    private final HookConfig config;
    private final CacheLocator locator;
    private final PodMutation mutation;
    private final HookMetrics metrics;
    private final DatasetResources datasets;

    AdmissionResource(HookConfig config, CacheLocator locator, PodMutation mutation, HookMetrics metrics,
                      DatasetResources datasets) {
        this.config = config;
        this.datasets = datasets;
        this.locator = locator;
        this.mutation = mutation;
        this.metrics = metrics;
    }

    @POST
    public CompletionStage<String> admit(String body) {
        AdmissionRequest request = reviews.request(body);
        if (!AdmissionReviews.isPodCreate(request)) {
            return CompletableFuture.completedFuture(unchanged(request, List.of()));
        }
        Pod pod = reviews.pod(request);
        OptIn optIn = OptIn.of(pod.getMetadata())
                .named(name -> datasets.granaryName(request.getNamespace(), name));
        if (optIn.datasets().isEmpty()) {
            return CompletableFuture.completedFuture(unchanged(request, optIn.warnings()));
        }
        if (PodMutation.alreadyMutated(pod)) {
            return CompletableFuture.completedFuture(reinvoked(request, pod, optIn));
        }
        Timer.Sample lookup = Timer.start();
        return locator.locate(optIn.datasets())
                .orTimeout(config.deadline().toMillis(), TimeUnit.MILLISECONDS)
                .handle((cached, failure) -> {
                    lookup.stop(metrics.lookups());
                    if (failure != null) {
                        return failOpen(request, pod, failure);
                    }
                    try {
                        return mutated(request, pod, optIn, cached);
                    } catch (RuntimeException e) {
                        return failOpen(request, pod, e);  // our bug must not cost the pod its creation
                    }
                });
    }

    @POST
    @Path("spare-cache-nodes")
    public String spareCacheNodes(String body) {
        AdmissionRequest request = reviews.request(body);
        if (!AdmissionReviews.isPodCreate(request)) {
            return unchanged(request, List.of());
        }
        Pod pod = reviews.pod(request);
        if (PodMutation.alreadyMutated(pod) || !OptIn.of(pod.getMetadata()).datasets().isEmpty()) {
            return unchanged(request, List.of());
        }
        Pod after = reviews.copy(pod);
        mutation.awayFromCacheNodes(after);
        metrics.admitted(Outcome.MUTATED);
        return reviews.allow(request, pod, after, List.of());
    }

    private String mutated(AdmissionRequest request, Pod pod, OptIn optIn, CacheLocation cached) {
        Pod after = reviews.copy(pod);
        List<String> warnings = new ArrayList<>(optIn.warnings());
        warnings.addAll(mutation.towardData(after, optIn, cached));
        metrics.admitted(Outcome.MUTATED);
        LOG.debugf("%s: %s", describe(request, pod),
                after.getMetadata().getAnnotations().get(PodMutation.AFFINITY_ANNOTATION));
        return reviews.allow(request, pod, after, warnings);
    }

    /**
     * The API server calls again after a later webhook changed the pod (added a sidecar, say): the affinity
     * stands, and what leads to the data is given to any container that lacks it.
     */
    private String reinvoked(AdmissionRequest request, Pod pod, OptIn optIn) {
        Pod after = reviews.copy(pod);
        // The datasets the first call found, not the opt-in's: that may name datasets that do not exist.
        mutation.leadToData(after, PodMutation.datasetsGiven(pod).orElse(optIn.datasets()), optIn.mountPath());
        metrics.admitted(Outcome.REINVOKED);
        return reviews.allow(request, pod, after, List.of());
    }

    private String failOpen(AdmissionRequest request, Pod pod, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        boolean late = cause instanceof TimeoutException;
        metrics.failedOpen(late ? "timeout" : "error");
        LOG.warnf("%s admitted unchanged: the metadata-service %s", describe(request, pod),
                late ? "did not answer within " + config.deadline() : "failed (" + cause + ")");
        return reviews.allow(request, List.of("granary: data locality unavailable right now; pod admitted unchanged"));
    }

    private String unchanged(AdmissionRequest request, List<String> warnings) {
        metrics.admitted(Outcome.UNCHANGED);
        return reviews.allow(request, warnings);
    }

    private static String describe(AdmissionRequest request, Pod pod) {
        String name = pod.getMetadata().getName() != null ? pod.getMetadata().getName()
                : pod.getMetadata().getGenerateName() + "*";
        return "pod " + request.getNamespace() + "/" + name;
    }
}
