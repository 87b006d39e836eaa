package io.granary.block.fill;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.granary.block.config.BlockConfig;
import io.granary.block.store.BlockKey;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.dataset.NodeCache;
import io.granary.contracts.placement.RendezvousPlacement;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.BlockClient;
import io.granary.kit.client.HandedBlock;
import io.granary.kit.client.MetadataClient;
import io.granary.kit.client.Suspects;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A block another worker holds, for a miss here: when membership changes, blocks change owners, and the new owner
 * takes a block from the worker that has it rather than from the under-store. Only workers the metadata-service
 * counts as caching the dataset are asked (none in a cold cluster, so a cold read costs nothing more), the likeliest
 * first by placement, at most {@link #ASKED} of them, each only for a block it already holds. A peer that fails to
 * answer (its node cut off) is suspected and not asked again for {@code granary.read.suspect-for}: every miss here
 * waited on it otherwise, until the metadata-service counted it gone.
 */
@ApplicationScoped
public class PeerBlocks {

    static final int ASKED = 2;
    private static final Logger LOG = Logger.getLogger(PeerBlocks.class);
    /** The metadata-service's answer of who caches a dataset, waited for no longer than a peer's. */
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final MetadataClient metadata;
    private final BlockClient blocks;
    private final String self;
    private final Suspects suspects;
    /** Per dataset, the other live workers that cache some of it; asked again every few seconds. */
    private final Cache<String, List<Worker>> holders = Caffeine.newBuilder()
            .expireAfterWrite(Duration.ofSeconds(2)).maximumSize(10_000).build();

    private final Cache<String, List<Worker>> others = Caffeine.newBuilder()
            .expireAfterWrite(Duration.ofSeconds(2)).maximumSize(1).build();

    PeerBlocks(@RestClient MetadataClient metadata, BlockClient blocks, BlockConfig config, Suspects suspects) {
        this.metadata = metadata;
        this.suspects = suspects;
        this.blocks = blocks;
        this.self = config.workerId();
    }

    /**
     * The block's bytes from a worker that holds it, or empty: {@code holder} first when named (the worker handing
     * its blocks over, asked by its id, never by an address a caller gave), then the likeliest of the others.
     * Blocks: call it off the event loop.
     */
    public Optional<HandedBlock> open(BlockKey key, BlockRef ref, String holder) {
        if (holder != null && !holder.equals(self)) {
            Optional<Worker> named = suspects.trusted(live()).stream().filter(worker -> worker.id().equals(holder))
                    .findFirst();
            Optional<HandedBlock> handed = named.flatMap(worker -> ask(worker, key, ref));
            if (handed.isPresent()) {
                return handed;
            }
        }
        List<Worker> peers = suspects.trusted(holders.get(key.dataset(), this::holdersOf));
        // Ranked, not placed: a draining worker owns nothing and is the one that holds the block.
        for (Worker peer : RendezvousPlacement.ranked(key.id().toString(), peers).stream().limit(ASKED).toList()) {
            if (!peer.id().equals(holder)) {
                Optional<HandedBlock> handed = ask(peer, key, ref);
                if (handed.isPresent()) {
                    return handed;
                }
            }
        }
        return Optional.empty();
    }

    private Optional<HandedBlock> ask(Worker peer, BlockKey key, BlockRef ref) {
        try {
            return BlockClient.await(blocks.heldBlock(peer, key.dataset(), ref));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.debugf("worker %s did not hand over %s: %s", peer.id(), key, e.getMessage());
        }
        return Optional.empty();
    }

    /** The other live workers, owners or not; asked again every few seconds. */
    private List<Worker> live() {
        try {
            return others.get("", any -> metadata.workers().stream()
                    .filter(worker -> worker.live() && !worker.id().equals(self)).toList());
        } catch (RuntimeException e) {  // the metadata-service away: the under-store serves, as it always could
            LOG.debugf("no peers known: %s", e.getMessage());
            return List.of();
        }
    }

    private List<Worker> holdersOf(String dataset) {
        try {
            Set<String> caching = metadata.findNodes(dataset).toCompletableFuture()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).orElse(List.of()).stream()
                    .filter(node -> node.cachedBytes() > 0).flatMap(node -> node.workers().stream())
                    .collect(Collectors.toSet());
            if (caching.isEmpty()) {
                return List.of();
            }
            return live().stream().filter(worker -> caching.contains(worker.id())).toList();
        } catch (Exception e) {  // the metadata-service away: the under-store serves, as it always could
            LOG.debugf("no peers asked for %s: %s", dataset, e.getMessage());
            return List.of();
        }
    }
}
