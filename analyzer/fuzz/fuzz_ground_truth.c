/* SPDX-License-Identifier: MIT */
/* libFuzzer target: any bytes as a ground-truth file, then every input's transaction window. */
#include <stddef.h>
#include <stdint.h>

#include "panlab/ground_truth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pl_ground_truth gt;
	struct pl_error err;
	uint64_t t_out_ns;

	if (pl_ground_truth_parse("fuzz.gt", (const char *)data, size, &gt, &err) < 0)
		return 0;
	for (uint64_t i = 0; i < gt.ninputs; i++)
		pl_ground_truth_output(&gt, i, &t_out_ns);
	pl_ground_truth_free(&gt);
	return 0;
}
