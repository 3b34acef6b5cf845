#!/bin/sh
# /oss/bin/panlab-launch PROGRAM ARG...: how panlab-session starts an
# unmodified program. The program cannot join the platform's ready
# hand-shake (include/panlab/ready.h), so this says "ready" as it hands
# over; the app's replay script starts with `wait idle` to let it draw
# its first screen. Then it runs the program itself (exec: the same pid).
[ -x "$1" ] || { echo "panlab-launch: $1 is missing from the guest image (scripts/guest-debs.sh)" >&2; exit 1; }
if [ -n "${PANLAB_READY_FD:-}" ]; then
	printf r >&"$PANLAB_READY_FD" || exit 1
	eval "exec $PANLAB_READY_FD>&-"
fi
# Its stderr goes where the session reads it back (PANLAB_APP_STDERR): the
# session copies it to the console and quotes it if the program dies.
[ -z "${PANLAB_APP_STDERR:-}" ] || exec 2>"$PANLAB_APP_STDERR"
# Programs derived from fbi ask the framebuffer console which fb device is
# theirs unless FRAMEBUFFER names it; the guest has no framebuffer console,
# and the query succeeds without an answer.
export FRAMEBUFFER="${FRAMEBUFFER:-/dev/fb0}"
exec "$@"
