#!/bin/bash
# The lab handbook against the current build (in `make test`; alone: `make labs-check`): runs
# every lab's commands as written, in order, each lab in a fresh checkout with an empty out/, and
# checks every claim of its key against what those commands wrote; then writes both editions and
# checks that the student's holds no key (workloads/labs/labs.sh). About 13 phone runs.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/panlab-labs.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$top/workloads/labs/labs.sh" --out "$work"
