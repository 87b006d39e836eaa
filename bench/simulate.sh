#!/usr/bin/env bash
# The cache policy simulator: every trace (PyTorch RandomSampler and DistributedSampler orders, files of several
# blocks, two jobs on one dataset, a scan among epochs, one job after another, and any recorded trace given) against
# every policy (the block store's own and the references) at cache/dataset 0.02 to 1.1; prints markdown tables.
#   bench/simulate.sh [--files 10000] [--epochs 5] [--trace FILE]...
# Needs the simulator built: ./mvnw -pl simulator -am -DskipTests package
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -f simulator/target/simulator.classpath && -d simulator/target/classes ]] \
  || { echo "bench/simulate.sh: the simulator is not built: ./mvnw -pl simulator -am -DskipTests package" >&2; exit 1; }
exec java -Xmx2g -cp "simulator/target/classes:$(cat simulator/target/simulator.classpath)" io.granary.simulator.Simulator "$@"
