package io.granary.cli.commands;

import io.granary.cli.CliFailure;
import io.granary.cli.Exit;
import io.granary.cli.api.ManagementApi;

/** {@code DATASET[/PATH]} as commands take it: a dataset, and a file or directory in it ("" for all of it). */
record DatasetPath(String dataset, String path) {

    static DatasetPath parse(String text) {
        String trimmed = text.startsWith("/") ? text.substring(1) : text;
        int slash = trimmed.indexOf('/');
        String dataset = slash < 0 ? trimmed : trimmed.substring(0, slash);
        if (dataset.isEmpty()) {
            throw new CliFailure(Exit.USAGE, "name a dataset, as DATASET or DATASET/PATH: '" + text + "'");
        }
        return new DatasetPath(dataset, slash < 0 ? "" : trimmed.substring(slash + 1));
    }

    /** {@code /api/v1/datasets/NAME} */
    String datasetUri() {
        return uri(dataset);
    }

    static String uri(String dataset) {
        return DatasetCommand.DATASETS + "/" + ManagementApi.segment(dataset);
    }

    @Override
    public String toString() {
        return path.isEmpty() ? dataset : dataset + '/' + path;
    }
}
