package io.granary.k8s;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/** What runs pods (a Deployment, StatefulSet or DaemonSet), seen through its pod template. */
record Workload(HasMetadata owner, PodTemplateSpec template) {

    static Optional<Workload> of(HasMetadata resource) {
        if (resource instanceof Deployment deployment) {
            return Optional.of(new Workload(deployment, deployment.getSpec().getTemplate()));
        }
        if (resource instanceof StatefulSet statefulSet) {
            return Optional.of(new Workload(statefulSet, statefulSet.getSpec().getTemplate()));
        }
        if (resource instanceof DaemonSet daemonSet) {
            return Optional.of(new Workload(daemonSet, daemonSet.getSpec().getTemplate()));
        }
        return Optional.empty();
    }

    String name() {
        return owner.getMetadata().getName();
    }

    String namespace() {
        return owner.getMetadata().getNamespace();
    }

    PodSpec pod() {
        return template.getSpec();
    }

    Map<String, String> podLabels() {
        return template.getMetadata().getLabels();
    }

    boolean selectedBy(Service service) {
        Map<String, String> selector = service.getSpec().getSelector();
        return Objects.equals(namespace(), service.getMetadata().getNamespace())
                && !selector.isEmpty() && podLabels().entrySet().containsAll(selector.entrySet());
    }

    List<Container> containers() {
        return pod().getContainers();
    }

    /** Init containers first, as they run. */
    Stream<Container> everyContainer() {
        return Stream.concat(pod().getInitContainers().stream(), containers().stream());
    }

    Container container(String name) {
        return containers().stream().filter(c -> c.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(this + " has no container " + name));
    }

    /** The volume a container mounts at exactly this path. */
    Volume volumeAt(Container container, String mountPath) {
        String volume = container.getVolumeMounts().stream()
                .filter(mount -> mount.getMountPath().equals(mountPath)).findFirst()
                .orElseThrow(() -> new AssertionError(this + ": nothing is mounted at " + mountPath)).getName();
        return pod().getVolumes().stream().filter(v -> v.getName().equals(volume)).findFirst()
                .orElseThrow(() -> new AssertionError(this + " mounts an undeclared volume " + volume));
    }

    /** The container port a Service's targetPort (a name or a number) reaches. */
    Optional<ContainerPort> port(IntOrString target) {
        return containers().stream().flatMap(container -> port(container, target).stream()).findFirst();
    }

    /** The port of this container a target (a name or a number, as in a Service or a probe) means. */
    static Optional<ContainerPort> port(Container container, IntOrString target) {
        return container.getPorts().stream()
                .filter(port -> target.getStrVal() != null
                        ? target.getStrVal().equals(port.getName())
                        : target.getIntVal().equals(port.getContainerPort()))
                .findFirst();
    }

    @Override
    public String toString() {
        return owner.getKind() + " " + name();
    }
}
