package io.granary.kit.client;

import java.io.InputStream;
import java.util.OptionalInt;

/**
 * A block another worker hands over: its bytes as they arrive, and the checksum its giver stored it with, which
 * the taker checks them against before it keeps the block (empty from a giver that sent none).
 */
public record HandedBlock(InputStream body, OptionalInt crc32c) {
}
