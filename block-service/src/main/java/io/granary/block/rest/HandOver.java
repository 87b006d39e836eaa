package io.granary.block.rest;

import io.granary.block.store.StoredBlock;
import io.granary.block.store.BlockStore;
import io.granary.contracts.block.BlockApi;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Optional;

/**
 * A block another worker takes over (it owns it now, and asks with {@link BlockApi#HELD_ONLY_HEADER}): sent whole
 * if held, with its checksum ({@link BlockApi#CRC32C_HEADER}), 404 if not, never filled, and no reader's read
 * (neither a hit nor bytes served).
 */
@ApplicationScoped
class HandOver {

    private final BlockStore store;

    HandOver(BlockStore store) {
        this.store = store;
    }

    void send(RoutingContext ctx, BlockRequest request) {
        Optional<StoredBlock> held = store.peek(request.key());
        if (held.isEmpty() || !store.sealed(held.get())) {  // a file written to since: the taker reads the store
            ctx.response().setStatusCode(404).end();
            return;
        }
        StoredBlock block = held.get();
        ctx.response().putHeader(BlockApi.BLOCK_LENGTH_HEADER, Long.toString(block.length()))
                .putHeader(BlockApi.CRC32C_HEADER, Integer.toUnsignedString(block.crc32c()))
                .sendFile(block.file().toString(), 0, block.length()).onFailure(failure -> {
                    if (!ctx.response().ended()) {
                        ctx.response().reset();  // moved or evicted meanwhile: the taker goes to the store
                    }
                });
    }
}
