package io.granary.contracts.dataload;

import io.granary.contracts.dataset.DatasetPaths;
import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.Validated;
import io.granary.contracts.validation.ValidationException;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A preload ({@code POST /api/v1/dataloads}): which files of a dataset to warm, and when.
 *
 * @param targets      directories or files to load
 * @param files        single files, listed one by one (e.g. the shards of the next epoch)
 * @param metadataOnly refresh the metadata cache only, load no data
 * @param schedule     five-field cron expression, required with policy Cron
 * @param priority     higher runs first
 */
public record DataLoadSpec(String dataset, List<Target> targets, List<String> files, boolean metadataOnly,
                           LoadPolicy policy, String schedule, int priority)
        implements Validated<DataLoadSpec> {

    /**
     * minute hour day-of-month month day-of-week, optionally led by a seconds field (six fields, Quartz style: for
     * loads more often than once a minute); names (MON, JAN) and @hourly-style macros are allowed.
     */
    private static final Pattern CRON_FIELD = Pattern.compile("[0-9A-Za-z*/,?LW#-]+");
    private static final Pattern CRON_MACRO = Pattern.compile("@(yearly|annually|monthly|weekly|daily|hourly)");

    public DataLoadSpec {
        targets = targets == null ? List.of() : List.copyOf(targets);
        files = files == null ? List.of() : List.copyOf(files);
        policy = policy == null ? LoadPolicy.ONCE : policy;
    }

    /**
     * Checks the spec and normalises its paths.
     *
     * @throws ValidationException naming the first bad field
     */
    @Override
    public DataLoadSpec validate() {
        Check.datasetName("dataset", dataset);
        if (targets.isEmpty() && files.isEmpty()) {
            throw new ValidationException("targets", "name at least one target or file to load");
        }
        List<Target> normalisedTargets = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            Target target = targets.get(i);
            if (target == null) {
                throw new ValidationException("targets[" + i + "]", "is required");
            }
            if (target.replicas() != null && (target.replicas() < 1 || target.replicas() > 16)) {
                throw new ValidationException("targets[" + i + "].replicas", "must be between 1 and 16");
            }
            normalisedTargets.add(new Target(DatasetPaths.normalize("targets[" + i + "].path", target.path()),
                    target.replicas()));
        }
        List<String> normalisedFiles = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            String file = DatasetPaths.normalize("files[" + i + "]", files.get(i));
            if (file.isEmpty() || file.endsWith("/")) {
                throw new ValidationException("files[" + i + "]", "must name a file");
            }
            normalisedFiles.add(file);
        }
        validateSchedule();
        return new DataLoadSpec(dataset, normalisedTargets, normalisedFiles, metadataOnly, policy, schedule, priority);
    }

    private void validateSchedule() {
        boolean hasSchedule = schedule != null && !schedule.isBlank();
        if (policy == LoadPolicy.ONCE) {
            if (hasSchedule) {
                throw new ValidationException("schedule", "only a Cron policy takes a schedule");
            }
            return;
        }
        if (!hasSchedule) {
            throw new ValidationException("schedule", "a Cron policy needs a schedule such as '0 2 * * *'");
        }
        String[] fields = schedule.strip().split("\\s+");
        boolean valid = fields.length == 1 ? CRON_MACRO.matcher(fields[0]).matches()
                : (fields.length == 5 || fields.length == 6) && List.of(fields).stream().allMatch(f -> CRON_FIELD.matcher(f).matches());
        if (!valid) {
            throw new ValidationException("schedule", "'" + schedule
                    + "' is not a cron expression of five fields (minute hour day month weekday), or six with seconds first");
        }
    }
}
