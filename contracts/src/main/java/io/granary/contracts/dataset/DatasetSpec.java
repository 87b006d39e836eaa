package io.granary.contracts.dataset;

import io.granary.contracts.block.ByteSize;
import io.granary.contracts.bucket.BucketSettings;
import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.Validated;
import io.granary.contracts.validation.ValidationException;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What an operator asks for when creating a dataset ({@code POST /api/v1/datasets}). Optional fields may be null
 * in a request; {@link #withDefaults()} fills them.
 *
 * @param name         DNS-1123 label; also the dataset's S3 bucket name
 * @param blockSize    e.g. {@code 16MiB}
 * @param replicas     cache copies of each block
 * @param nodeSelector labels a worker must carry to cache this dataset
 * @param metadataTtl  how long listed metadata is trusted before a resync ({@code 10m}, {@code 1h}, ISO-8601);
 *                     null: until an explicit sync
 * @param readOnly     refuse writes through the gateway
 * @param bucket       what S3 keeps about the dataset as a bucket: owner and ACL, CORS, public access block; the
 *                     identity that creates the dataset owns it unless this names another owner
 * @param cacheShare   the share of every worker's cache the dataset keeps against other datasets (0.3: 30%): their
 *                     newcomers never push its blocks below it, and its own take room from datasets above theirs;
 *                     null: none, it competes for the whole cache. The shares of all datasets add up to 1 at most
 * @param labels       Kubernetes-style labels, for whoever manages the dataset (the operator marks the datasets it
 *                     made with the resource they stand for); Granary reads none of them
 */
public record DatasetSpec(String name, List<Mount> mounts, String blockSize, Integer replicas,
                          Map<String, String> nodeSelector, String metadataTtl, Boolean readOnly,
                          BucketSettings bucket, Double cacheShare, Map<String, String> labels)
        implements Validated<DatasetSpec> {

    public static final String DEFAULT_BLOCK_SIZE = "16MiB";
    public static final long MIN_BLOCK_SIZE = 64 * 1024;
    public static final long MAX_BLOCK_SIZE = 1024L * 1024 * 1024;
    public static final int MAX_REPLICAS = 16;

    private static final Pattern LABEL_VALUE = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    private static final Pattern LABEL_KEY = Pattern.compile(
            "([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");

    /** Option keys that would put a secret into the dataset definition. */
    private static final Set<String> SECRET_OPTIONS = Set.of("accesskey", "secretkey", "secret", "password", "token",
            "sessiontoken", "aws_access_key_id", "aws_secret_access_key");

    public DatasetSpec {
        mounts = mounts == null ? List.of() : List.copyOf(mounts);
        nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    public DatasetSpec(String name, List<Mount> mounts, String blockSize, Integer replicas,
                       Map<String, String> nodeSelector, String metadataTtl, Boolean readOnly,
                       BucketSettings bucket, Double cacheShare) {
        this(name, mounts, blockSize, replicas, nodeSelector, metadataTtl, readOnly, bucket, cacheShare, null);
    }

    public DatasetSpec(String name, List<Mount> mounts, String blockSize, Integer replicas,
                       Map<String, String> nodeSelector, String metadataTtl, Boolean readOnly) {
        this(name, mounts, blockSize, replicas, nodeSelector, metadataTtl, readOnly, null, null, null);
    }

    public DatasetSpec(String name, List<Mount> mounts, String blockSize, Integer replicas,
                       Map<String, String> nodeSelector, String metadataTtl, Boolean readOnly,
                       BucketSettings bucket) {
        this(name, mounts, blockSize, replicas, nodeSelector, metadataTtl, readOnly, bucket, null, null);
    }

    /** @throws ValidationException naming the first bad field */
    @Override
    public DatasetSpec validate() {
        Check.datasetName("name", name);
        if (mounts.isEmpty()) {
            throw new ValidationException("mounts", "at least one mount is required");
        }
        Set<String> mountNames = new HashSet<>();
        for (int i = 0; i < mounts.size(); i++) {
            validate("mounts[" + i + "]", mounts.get(i));
            String mountName = mounts.get(i).name() == null ? "" : mounts.get(i).name();
            if (!mountNames.add(mountName)) {
                throw new ValidationException("mounts[" + i + "].name", mountName.isEmpty()
                        ? "only one mount may sit at the dataset's root; give the others a name"
                        : "'" + mountName + "' is used by another mount");
            }
        }
        if (blockSize != null) {
            long bytes = ByteSize.parse("blockSize", blockSize);
            if (bytes < MIN_BLOCK_SIZE || bytes > MAX_BLOCK_SIZE) {
                throw new ValidationException("blockSize", "must be between 64KiB and 1GiB, not " + blockSize);
            }
        }
        if (replicas != null && (replicas < 1 || replicas > MAX_REPLICAS)) {
            throw new ValidationException("replicas", "must be between 1 and " + MAX_REPLICAS + ", not " + replicas);
        }
        nodeSelector.forEach((key, value) -> {
            if (key == null || key.isBlank() || value == null) {
                throw new ValidationException("nodeSelector", "keys and values must not be empty");
            }
        });
        if (metadataTtl != null) {
            metadataTtlDuration();
        }
        if (cacheShare != null && !(cacheShare > 0 && cacheShare <= 1)) {
            throw new ValidationException("cacheShare", "must be more than 0 and at most 1 (a share of each worker's "
                    + "cache), not " + cacheShare);
        }
        labels.forEach((key, value) -> {
            if (key == null || !LABEL_KEY.matcher(key).matches() || key.length() > 316) {
                throw new ValidationException("labels", "'" + key + "' is not a label key: [prefix/]name, letters, "
                        + "digits, '-', '_' and '.', as Kubernetes has them");
            }
            if (value == null || value.length() > 63 || !(value.isEmpty() || LABEL_VALUE.matcher(value).matches())) {
                throw new ValidationException("labels." + key, "'" + value + "' is not a label value: at most 63 "
                        + "letters, digits, '-', '_' and '.', starting and ending with a letter or digit");
            }
        });
        if (bucket != null) {
            try {
                bucket.validate();
            } catch (ValidationException e) {
                throw new ValidationException("bucket." + e.field(), e.detail());
            }
        }
        return this;
    }

    /** This spec with every optional field set to its default. */
    public DatasetSpec withDefaults() {
        return new DatasetSpec(name, mounts, blockSize == null ? DEFAULT_BLOCK_SIZE : blockSize,
                replicas == null ? 1 : replicas, nodeSelector, metadataTtl, readOnly != null && readOnly, bucket,
                cacheShare, labels);
    }

    /** This spec with other bucket settings. */
    public DatasetSpec withBucket(BucketSettings settings) {
        return new DatasetSpec(name, mounts, blockSize, replicas, nodeSelector, metadataTtl, readOnly, settings,
                cacheShare, labels);
    }

    /** The share of each worker's cache kept for this dataset: 0 when it has none. */
    public double cacheShareOrNone() {
        return cacheShare == null ? 0 : cacheShare;
    }

    public long blockSizeBytes() {
        return ByteSize.parse("blockSize", blockSize == null ? DEFAULT_BLOCK_SIZE : blockSize);
    }

    /** @return null when metadata is kept until an explicit sync */
    public Duration metadataTtlDuration() {
        if (metadataTtl == null || metadataTtl.isBlank()) {
            return null;
        }
        Duration ttl = parseDuration(metadataTtl.strip());
        if (ttl == null || ttl.isNegative() || ttl.isZero()) {
            throw new ValidationException("metadataTtl", "'" + metadataTtl
                    + "' is not a positive duration such as 30s, 10m, 1h or PT10M");
        }
        return ttl;
    }

    private static Duration parseDuration(String text) {
        try {
            if (text.toUpperCase(Locale.ROOT).startsWith("P")) {
                return Duration.parse(text);
            }
            long amount = Long.parseLong(text.substring(0, text.length() - 1));
            return switch (text.charAt(text.length() - 1)) {
                case 's' -> Duration.ofSeconds(amount);
                case 'm' -> Duration.ofMinutes(amount);
                case 'h' -> Duration.ofHours(amount);
                case 'd' -> Duration.ofDays(amount);
                default -> null;
            };
        } catch (DateTimeParseException | NumberFormatException | StringIndexOutOfBoundsException e) {
            return null;
        }
    }

    private static void validate(String field, Mount mount) {
        if (mount == null) {
            throw new ValidationException(field, "is required");
        }
        String uri = Check.required(field + ".uri", mount.uri());
        URI parsed;
        try {
            parsed = new URI(uri);
        } catch (URISyntaxException e) {
            throw new ValidationException(field + ".uri", "is not a valid uri: " + e.getReason());
        }
        String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("s3") && !scheme.equals("file") && !scheme.equals("hdfs")) {
            throw new ValidationException(field + ".uri", "'" + uri
                    + "' must be s3://bucket/prefix, hdfs://namenode:port/path or file:///path");
        }
        if (parsed.getRawUserInfo() != null) {
            // Never echo the uri: what sits before '@' is likely a key pair.
            throw new ValidationException(field + ".uri", "must not carry credentials: put them in a secret and "
                    + "name it in credentialsRef");
        }
        if (scheme.equals("s3") && (parsed.getRawAuthority() == null || parsed.getRawAuthority().isEmpty())) {
            throw new ValidationException(field + ".uri", "'" + uri + "' names no bucket: use s3://bucket/prefix");
        }
        if (scheme.equals("hdfs") && (parsed.getHost() == null || parsed.getHost().isEmpty())) {
            throw new ValidationException(field + ".uri", "'" + uri + "' names no namenode: use "
                    + "hdfs://namenode:port/path or hdfs://nameservice/path");
        }
        if (mount.name() != null && !mount.name().isEmpty()
                && (mount.name().contains("/") || !DatasetPaths.normalize(field + ".name", mount.name()).equals(mount.name()))) {
            throw new ValidationException(field + ".name", "'" + mount.name() + "' must be one directory name");
        }
        for (String key : mount.options().keySet()) {
            if (SECRET_OPTIONS.contains(key.toLowerCase(Locale.ROOT))) {
                throw new ValidationException(field + ".options." + key, "credentials must not be given inline: "
                        + "put them in a secret and name it in credentialsRef");
            }
        }
        if (mount.credentialsRef() != null && !mount.credentialsRef().isBlank()) {
            Check.secretName(field + ".credentialsRef", mount.credentialsRef());
        }
    }
}
