/* SPDX-License-Identifier: MIT */
/*
 * One run's model into a SQLite database (libsqlite3), so that users ask
 * their own questions in SQL, as Perfetto users do with trace_processor.
 * Every table is keyed by run_id: one file holds one run
 * (panlab-analyze --sqlite) or a whole experiment (panlab-analyze record,
 * for scripts/experiment.sh, merges the runs' files into
 * out/<experiment>/results.sqlite).
 *
 * Ownership: pl_sqlite_schema is static text; pl_export_write_sqlite
 * borrows the analysis and opens and closes the database itself.
 * Times are the trace's CLOCK_MONOTONIC ns.
 */
#ifndef PANLAB_EXPORT_SQLITE_H
#define PANLAB_EXPORT_SQLITE_H

#include <stdint.h>

#include "panlab/error.h"
#include "panlab/report.h"

/* The schema (CREATE TABLE IF NOT EXISTS ..., with a comment per column). */
extern const char pl_sqlite_schema[];

/*
 * Creates the database at path with the schema and its version if missing,
 * or checks the version of the one there (a file another build wrote is
 * refused). Returns 0, or -1 with err set.
 */
int pl_sqlite_create(const char *path, struct pl_error *err);

/*
 * Creates the database at path if missing, applies the schema and replaces
 * the rows of a->run_id in every model table, in one transaction; the runs
 * table (the experiment runner's) is not touched. Waits up to 60 s for a
 * lock another writer holds. Returns 0, or -1 with err set.
 */
int pl_export_write_sqlite(const struct pl_analysis *a, const char *path, struct pl_error *err);

/*
 * One row of the runs table, the experiment runner's (scripts/experiment.sh,
 * through panlab-analyze record). A NULL text or a has_ flag of 0 is SQL
 * NULL; the strings are borrowed.
 */
struct pl_run_row {
	const char *run_id, *experiment, *config, *backend, *workload;
	int has_cores, has_freq_mhz, has_trace, has_repetition, has_wall_s;
	uint64_t cores, freq_mhz, repetition;
	int trace; /* 1 traced, 0 tracer off */
	const char *governor, *options, *input_hash;
	const char *status; /* pending, running, ok or failed */
	const char *reason;
	double wall_s;
	const char *finished_at; /* UTC, ISO 8601 */
};

/* Whether status is one the runs table knows. */
int pl_run_status_valid(const char *status);
/*
 * Creates the database at path if missing, applies the schema and replaces
 * row->run_id's runs row by row, by column name; with model (a run's
 * model.sqlite, written by pl_export_write_sqlite) also replaces the run's
 * rows of every model table by the model's, in the same transaction. Waits
 * up to 60 s for a lock. Returns 0, or -1 with err set.
 */
int pl_sqlite_record_run(const char *path, const struct pl_run_row *row, const char *model,
			 struct pl_error *err);

#endif /* PANLAB_EXPORT_SQLITE_H */
