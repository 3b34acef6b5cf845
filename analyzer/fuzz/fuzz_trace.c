/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: any bytes as a trace. A trace the reader accepts goes
 * through every stage, is validated against a real run's ground truth, and
 * is written out by the JSON writers (summary.json, trace.json) as
 * panlab-analyze writes them; each file must parse back as JSON (jansson),
 * or the target aborts.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "panlab/energy.h"
#include "panlab/export_json.h"
#include "panlab/ground_truth.h"
#include "panlab/model.h"
#include "panlab/report.h"
#include "panlab/trace.h"
#include "panlab/validate.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pl_ground_truth gt;
static char dir[] = "/tmp/panlab-fuzz-json.XXXXXX";

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_trace: %s\n", what);
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct pl_error err;

	(void)argc;
	(void)argv;
	if (pl_ground_truth_read_file(FUZZ_GROUND_TRUTH, &gt, &err) < 0)
		fail(err.msg);
	if (!mkdtemp(dir))
		fail("cannot create a temporary directory");
	return 0;
}

/* The file a writer produced parses as JSON; it is removed afterwards. */
static void check_json(const char *path)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);

	if (!doc) {
		fprintf(stderr, "fuzz_trace: %s is not valid JSON: %d:%d: %s\n", path, je.line,
			je.column, je.text);
		abort();
	}
	json_decref(doc);
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pl_trace trace;
	struct pl_error err;
	struct pl_model m;
	struct pl_energy energy;
	struct pl_symbols symbols;
	struct pl_validation val;
	char path[256];

	if (pl_trace_parse("fuzz.bin", data, size, &trace, &err) < 0)
		return 0;
	pl_model_build(&trace, &m);
	if (pl_symbols_build(&m.tasks, &m.iv, NULL, &symbols, &err) < 0)
		fail(err.msg);
	pl_energy_build(&trace, &m.tx, &pl_power_galaxy_nexus, &energy);
	pl_validate(&m.tx, &gt, &val);

	struct pl_analysis a = pl_analysis_of(&m, &trace, &gt, &val, &energy, &symbols);

	a.backend = "phone";
	a.workload = "fuzz";
	a.run_id = "fuzz\"\\\n\x01";

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (pl_report_write_summary(&a, path, &err) < 0)
		fail(err.msg);
	check_json(path);
	snprintf(path, sizeof(path), "%s/trace.json", dir);
	if (pl_export_write_trace_json(&a, path, &err) < 0)
		fail(err.msg);
	check_json(path);
	pl_validation_free(&val);
	pl_energy_free(&energy);
	pl_symbols_free(&symbols);
	pl_model_free(&m);
	pl_trace_free(&trace);
	return 0;
}
