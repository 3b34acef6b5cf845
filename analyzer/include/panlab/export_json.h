/* SPDX-License-Identifier: MIT */
/*
 * trace.json: the model in Chrome's Trace Event Format (the JSON that
 * Perfetto UI and chrome://tracing open; "Trace Event Format", Google,
 * JSON Object Format). Per thread: one complete ("X") slice per execution
 * interval, instants for inputs, invalidates and updates; a flow arrow
 * ("s"/"f") per causal edge, and again per causal hop of each critical path
 * (category "critical_path"); counters ("C") of each cpu's frequency and
 * online state; one async slice ("b"/"e") per transaction from its input
 * to its last update. Timestamps are microseconds with ns
 * resolution. Threads whose process is unknown (no FORK traced) get their
 * own tid as pid.
 *
 * Ownership: pl_export_trace_json returns a new reference the caller must
 * json_decref; the analysis is only borrowed.
 */
#ifndef PANLAB_EXPORT_JSON_H
#define PANLAB_EXPORT_JSON_H

#include <jansson.h>

#include "panlab/error.h"
#include "panlab/report.h"

json_t *pl_export_trace_json(const struct pl_analysis *a);
int pl_export_write_trace_json(const struct pl_analysis *a, const char *path,
			       struct pl_error *err);

#endif /* PANLAB_EXPORT_JSON_H */
