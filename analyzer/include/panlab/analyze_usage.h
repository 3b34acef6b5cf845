/* SPDX-License-Identifier: MIT */
/*
 * panlab-analyze's usage line (no trailing newline): printed by the
 * command (analyzer/main.c) and expected by its tests. A string constant;
 * nothing to own or free.
 */
#ifndef PANLAB_ANALYZE_USAGE_H
#define PANLAB_ANALYZE_USAGE_H

#define PL_ANALYZE_USAGE                                                                               \
	"usage: panlab-analyze --trace FILE --ground-truth FILE --out DIR "                            \
	"--backend NAME --workload NAME [--run-id ID] [--expect FILE] [--sqlite FILE] [--symbols DIR]" \
	" [--no-trace-json] [--no-plots] | panlab-analyze schema [--db FILE]"                          \
	" | panlab-analyze overhead --on DIR --off DIR --out DIR [--no-plots]"                         \
	" | panlab-analyze stream --trace FILE --out DIR [--ground-truth FILE]"                        \
	" | panlab-analyze findings --db FILE --experiment NAME --out DIR [--constants FILE]..."       \
	" [--repeat CONFIG:DIR:DIR] [--replicates N] [--seed N] [--no-plots]"                          \
	" [--bench FILE --runs-dir DIR [--wall-s S]]"                                                  \
	" | panlab-analyze model-constants"                                                            \
	" | panlab-analyze verdict --db FILE --experiment NAME --runs-dir DIR --out FILE"              \
	" | panlab-analyze report --db FILE --out FILE.html"                                           \
	" | panlab-analyze record --db FILE --run-id ID --status pending|running|ok|failed"            \
	" [--experiment NAME] [--config NAME] [--backend NAME] [--workload NAME] [--cores N]"          \
	" [--governor NAME] [--freq-mhz N] [--trace on|off] [--repetition N] [--options TEXT]"         \
	" [--input-hash HEX] [--reason TEXT] [--wall-s S] [--model FILE]"

#endif /* PANLAB_ANALYZE_USAGE_H */
