package io.granary.metadata.service;

import java.time.Duration;
import java.time.Instant;

/**
 * Whether a worker's silence is its own. Heartbeats reach the metadata-service through one consumer group, so a
 * rebalance (a replica joining or leaving) or a broker restart stops every worker's heartbeats at once for 15-30 s;
 * counting that time would mark live workers left. So a worker is late only by the time in which another worker
 * was heard and it was not ({@code heard}, the last heartbeat from anyone, is past its deadline). When nobody at
 * all was heard for longer than {@code quietLimit} (every worker gone, or a lone one), time counts again.
 *
 * @param heard      when the last heartbeat of any worker arrived
 * @param now        the sweep's time
 * @param quietLimit the longest everyone may be silent before that silence counts
 */
record Silence(Instant heard, Instant now, Duration quietLimit) {

    /** Whether a worker last heard at {@code last}, allowed {@code deadAfter} of silence, is gone. */
    boolean gone(Instant last, Duration deadAfter) {
        Instant deadline = last.plus(deadAfter);
        if (!deadline.isBefore(now)) {
            return false;
        }
        boolean othersHeardSince = heard.isAfter(deadline);
        boolean everyoneQuietTooLong = heard.plus(quietLimit).isBefore(now);
        return othersHeardSince || everyoneQuietTooLong;
    }
}
