package io.granary.contracts.worker;

/** Cache media, fastest first: MEM is a tmpfs directory, SSD and HDD are disk directories. */
public enum Medium {
    MEM, SSD, HDD
}
