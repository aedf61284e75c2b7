#!/usr/bin/env bash
# The two-site testbed's command line (up / down / status / rtt; --help for the parameters). The script
# itself lives with the Java class that runs it, Testbed: one source.
exec "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../src/main/resources/io/jetstream/benchmarks/crosssite/testbed/testbed.sh" "$@"
