#!/usr/bin/env bash
# Runs a main class from a module's test classes (the fleet benchmarks, which start their own API
# server and operator) with the Kubernetes binaries of scripts/k8s-binaries.sh, after compiling the
# module and writing its test classpath. Shared by the bench-*.sh scripts that run such a class.
#   scripts/lib/test-main.sh MODULE CLASS [ARG...]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
MODULE=${1:?usage: $0 MODULE CLASS [ARG...]}
CLASS=${2:?usage: $0 MODULE CLASS [ARG...]}
shift 2
BIN=$("$ROOT/scripts/k8s-binaries.sh" | tail -n 1)
mvn -B -q -pl "$MODULE" -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=test
CP="$MODULE/target/test-classes:$MODULE/target/classes:$(cat "$MODULE/target/classpath.txt")"
exec java -Xmx1g -Dgpu-operator.k8s.bin="$BIN" -cp "$CP" "$CLASS" "$@"
