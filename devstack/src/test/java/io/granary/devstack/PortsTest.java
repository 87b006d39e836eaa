package io.granary.devstack;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class PortsTest {

    /**
     * Servers started side by side (a stack's broker and store) each ask for ports before either binds: the kernel
     * picks each from a random place in its range, so among these 650 some come twice unless the JVM keeps count.
     */
    @Test
    void neverHandsOutThePortTwiceEvenToCallersAtTheSameTime() {
        List<CompletableFuture<List<Integer>>> callers = new ArrayList<>();
        for (int caller = 0; caller < 4; caller++) {
            callers.add(CompletableFuture.supplyAsync(() -> IntStream.range(0, 100)
                    .flatMap(call -> call % 2 == 0 ? IntStream.of(Ports.free()) : IntStream.of(Ports.free(2)))
                    .boxed().toList()));
        }
        callers.add(CompletableFuture.supplyAsync(() -> IntStream.range(0, 50)
                .map(call -> Ports.freeForPeers()).boxed().toList()));

        List<Integer> ports = callers.stream().flatMap(caller -> caller.join().stream()).toList();

        assertThat(ports).hasSize(4 * 150 + 50).doesNotHaveDuplicates();
    }
}
