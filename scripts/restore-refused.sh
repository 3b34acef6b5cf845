#!/bin/bash
# Whether a phone run given --snapshot-load SNAP was refused its snapshot, from the run's
# stderr RUN_ERR: exit 0 refused (the error names SNAP and nothing says it was restored), 1 not.
# run-suite.sh and experiment.sh boot a refused run cold, since the snapshot may be of another
# build; a run that failed after its restore failed on its own, and keeps its error.
#   usage: restore-refused.sh RUN_ERR SNAP
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 RUN_ERR SNAP" >&2; exit 2; }
! grep -qF "restored $2 at" "$1" && grep -qF "$2" "$1"
