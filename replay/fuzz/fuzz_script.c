/* SPDX-License-Identifier: MIT */
/* libFuzzer target: any bytes as a replay script, then every action read back. */
#include <stddef.h>
#include <stdint.h>

#include "panlab/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pl_script *script;
	char err[256];

	if (pl_script_parse_buffer("fuzz.rply", (const char *)data, size, &script, err, sizeof(err)) != 0)
		return 0;
	for (size_t i = 0; i < pl_script_action_count(script); i++)
		(void)pl_script_action(script, i);
	(void)pl_script_duration_ns(script);
	pl_script_free(script);
	return 0;
}
