package io.granary.contracts.plan;

import io.granary.contracts.dataset.DatasetPaths;
import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.Validated;
import io.granary.contracts.validation.ValidationException;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The order one rank of a training job reads a dataset's files in during one epoch, as its sampler drew it: the cache
 * fetches ahead of the reader in this order and evicts first what the epoch has read. A plan for the next epoch of the
 * same job and rank replaces the last.
 *
 * @param dataset     the dataset read
 * @param job         the training job's name, the same for all its ranks
 * @param epoch       the epoch this order is for
 * @param rank        this reader's rank, 0 to {@code worldSize - 1}
 * @param worldSize   how many ranks share the epoch (each plans its own part)
 * @param seed        the sampler's seed, recorded so a plan can be told from another of the same epoch
 * @param listVersion the version of the file list the sampler indexes (a hash the client computes), so ranks reading
 *                    different lists are told apart
 * @param files       the rank's files in read order, paths inside the dataset
 */
public record EpochPlan(String dataset, String job, int epoch, int rank, int worldSize, long seed, String listVersion,
                        List<String> files) implements Validated<EpochPlan> {

    private static final Pattern JOB = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    public EpochPlan {
        files = files == null ? List.of() : List.copyOf(files);
    }

    /** One plan per job and rank: the next epoch's replaces it. */
    public String id() {
        return job + "." + rank;
    }

    @Override
    public EpochPlan validate() {
        Check.datasetName("dataset", dataset);
        Check.required("job", job);
        if (!JOB.matcher(job).matches()) {
            throw new ValidationException("job", "'" + job + "' must be 1-64 letters, digits, '.', '_' or '-'");
        }
        if (epoch < 0) {
            throw new ValidationException("epoch", "must not be negative");
        }
        if (worldSize < 1) {
            throw new ValidationException("worldSize", "must be at least 1");
        }
        if (rank < 0 || rank >= worldSize) {
            throw new ValidationException("rank", "must be 0 to worldSize - 1 (" + (worldSize - 1) + ")");
        }
        if (files.isEmpty()) {
            throw new ValidationException("files", "a plan names at least one file");
        }
        List<String> normalised = new ArrayList<>(files.size());
        for (int i = 0; i < files.size(); i++) {
            String path = DatasetPaths.normalize("files[" + i + "]", files.get(i));
            if (path.isEmpty() || path.endsWith("/")) {
                throw new ValidationException("files[" + i + "]", "'" + files.get(i) + "' is not a file's path");
            }
            normalised.add(path);
        }
        return new EpochPlan(dataset, job, epoch, rank, worldSize, seed, listVersion, normalised);
    }
}
