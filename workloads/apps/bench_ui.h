/*
 * The screen and the work shared by the synthetic benchmark apps (Panappticon
 * Table 2): a button over the screen centre, where the replay scripts tap, and
 * a result view. A tap's job is CPU work for param milliseconds; starting one
 * darkens the button (the first display update), finishing one redraws the
 * button and the result (the last update of the transaction).
 *
 * Ownership: struct bench_ui is the app's (usually static); its views are
 * added to the app's window by bench_ui_create.
 */
#ifndef PANLAB_BENCH_UI_H
#define PANLAB_BENCH_UI_H

#include <stdint.h>

#include "bench_work.h"
#include "panlab/app.h"

struct bench_ui {
	struct pl_app *app;
	struct pl_view button;
	struct pl_view result;
	unsigned pending;	/* jobs started and not yet finished */
	uint64_t completed;
	uint64_t last_ms;
	uint64_t checksum;	/* last job's result, shown so the work cannot be optimised away */
	/* The app's reaction to a tap on the button; param is the script's value. */
	void (*on_tap)(struct bench_ui *ui, int32_t param);
};

/* on_create for the apps: adds the views. Returns 0 or -errno. */
int bench_ui_create(struct pl_app *app, struct bench_ui *ui);
/* on_key for the apps (ctx is the struct bench_ui): any key clears the results, a display
 * update caused by a key. */
void bench_ui_on_key(struct pl_app *app, void *ctx, uint32_t code);
/* On the main thread. */
void bench_ui_job_started(struct bench_ui *ui);
void bench_ui_job_finished(struct bench_ui *ui, uint64_t ms, uint64_t checksum);

/*
 * A tap's job as an AsyncTask: pre-execute calls bench_ui_job_started, the
 * background step returns work(ui, ms) as the checksum, post-execute calls
 * bench_ui_job_finished. The optional hooks add an app's own display changes
 * on the main thread. The ops are static and outlive every job.
 */
struct bench_job_ops {
	uint64_t (*work)(struct bench_ui *ui, uint64_t ms);	/* on the worker */
	void (*started)(struct bench_ui *ui);			/* may be NULL */
	void (*finished)(struct bench_ui *ui);			/* may be NULL */
};

/* Submits a job of param ms (negative counts as 0) to ex. Returns 0 or -errno. */
int bench_ui_start_job(struct bench_ui *ui, int32_t param, struct pl_executor *ex,
		       const struct bench_job_ops *ops);

/*
 * A job for a thread the app runs itself (a worker thread, a HandlerThread):
 * bench_ui_thread_job marks the job started and returns it (NULL when out
 * of memory); bench_ui_run_thread_job, called on that thread, computes for
 * the job's ms and posts the result to the main looper, which shows it and
 * frees the job. bench_ui_drop_thread_job undoes a job that never ran.
 */
struct bench_thread_job;
struct bench_thread_job *bench_ui_thread_job(struct bench_ui *ui, int32_t param);
void bench_ui_run_thread_job(void *job);
void bench_ui_drop_thread_job(struct bench_thread_job *job);

#endif /* PANLAB_BENCH_UI_H */
