package io.granary.preload.service;

import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.dataload.FileError;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts of one run of a DataLoad, updated by many batch threads, and the status they make: files and bytes done of
 * total, the recent rate (over the last few seconds, not since the start) and the ETA it gives.
 */
final class Progress {

    private static final Duration RATE_WINDOW = Duration.ofSeconds(3);

    private final Clock clock;
    private final Instant startedAt;
    private final int maxErrors;
    final AtomicLong filesTotal = new AtomicLong();
    final AtomicLong bytesTotal = new AtomicLong();
    final AtomicLong filesDone = new AtomicLong();
    final AtomicLong bytesDone = new AtomicLong();
    final AtomicLong filesFailed = new AtomicLong();
    private final List<FileError> errors = new ArrayList<>();
    private Instant windowStart;
    private long windowBytes;
    private double rate;

    Progress(Clock clock, int maxErrors) {
        this.clock = clock;
        this.maxErrors = maxErrors;
        this.startedAt = clock.instant();
        this.windowStart = startedAt;
    }

    void failed(String path, String reason) {
        filesFailed.incrementAndGet();
        synchronized (errors) {
            if (errors.size() < maxErrors) {
                errors.add(new FileError(path, reason));
            }
        }
    }

    long failures() {
        return filesFailed.get();
    }

    synchronized DataLoadStatus status(String id, String dataset, DataLoadPhase phase) {
        Instant now = clock.instant();
        long done = bytesDone.get();
        Duration window = Duration.between(windowStart, now);
        if (window.compareTo(RATE_WINDOW) >= 0 || rate == 0 && !window.isZero()) {
            rate = (done - windowBytes) / (window.toNanos() / 1e9);
            windowStart = now;
            windowBytes = done;
        }
        boolean ended = phase.ended();
        Long eta = ended ? Long.valueOf(0) : rate > 0 ? Long.valueOf((long) ((bytesTotal.get() - done) / rate)) : null;
        List<FileError> copy;
        synchronized (errors) {
            copy = List.copyOf(errors);
        }
        return new DataLoadStatus(id, dataset, phase, filesDone.get(), filesTotal.get(), done, bytesTotal.get(),
                ended ? 0 : Math.max(0, rate), eta, startedAt, ended ? now : null, copy, now);
    }
}
