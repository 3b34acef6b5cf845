# Sourced by panlab's command-line scripts: the conventions they share (scripts/README.md,
# "Commands"). Exit status everywhere: 0 ok, 1 a run or check failed, 2 a usage or input error.
# The sourcing script sets `usage_text` (its usage lines) first.
#
#   cli_usage [STATUS]   --help: the usage on stdout, exit 0; else on stderr, exit STATUS (2)
#   cli_need "$@"        in an option's case branch: $2, its value, must be given and not be
#                        empty or another option, or one line naming the option and exit 2
#   cli_error MESSAGE    one line "SCRIPT: MESSAGE" on stderr, exit 2
#   cli_unknown OPTION   one line: OPTION is unknown, and the usage's first line; exit 2
#   cli_tool CMD PACKAGE CMD must be on PATH, or one line naming the Debian package, exit 2

cli_usage() {
	local status=${1:-2}
	if [ "$status" = 0 ]; then
		printf '%s\n' "$usage_text" || exit 1	# stdout full or closed: printf said so
	else
		printf '%s\n' "$usage_text" >&2
	fi
	exit "$status"
}

cli_error() {
	echo "$0: $*" >&2
	exit 2
}

cli_unknown() {
	cli_error "unknown option '$1'; ${usage_text%%$'\n'*}"
}

cli_need() {
	[ $# -ge 2 ] || cli_error "$1 needs a value"
	case "$2" in
	"") cli_error "$1 needs a value, got an empty one" ;;
	-?*) cli_error "$1 needs a value, got the option '$2'" ;;
	esac
}

cli_tool() {
	command -v "$1" >/dev/null ||
		cli_error "$1 is missing; install the Debian package $2 ('make deps')"
}
