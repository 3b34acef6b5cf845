/* SPDX-License-Identifier: MIT */
/*
 * One run's model into a SQLite database (libsqlite3), so that users ask
 * their own questions in SQL, as Perfetto users do with trace_processor.
 * Every table is keyed by run_id: one file holds one run
 * (panlab-analyze --sqlite) or a whole experiment (scripts/experiment.sh
 * merges the runs' files into out/<experiment>/results.sqlite).
 *
 * Ownership: pl_sqlite_schema is static text; pl_export_write_sqlite
 * borrows the analysis and opens and closes the database itself.
 * Times are the trace's CLOCK_MONOTONIC ns.
 */
#ifndef PANLAB_EXPORT_SQLITE_H
#define PANLAB_EXPORT_SQLITE_H

#include "panlab/error.h"
#include "panlab/report.h"

/* The schema (CREATE TABLE IF NOT EXISTS ..., with a comment per column). */
extern const char pl_sqlite_schema[];

/*
 * Creates the database at path if missing, applies the schema and replaces
 * the rows of a->run_id in every model table, in one transaction; the runs
 * table (the experiment runner's) is not touched. Waits up to 60 s for a
 * lock another writer holds. Returns 0, or -1 with err set.
 */
int pl_export_write_sqlite(const struct pl_analysis *a, const char *path, struct pl_error *err);

#endif /* PANLAB_EXPORT_SQLITE_H */
