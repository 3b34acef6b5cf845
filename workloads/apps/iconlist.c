/*
 * app-iconlist: DiagDroid's headline case (FSE 2016, section 3 and case 1), a download list
 * whose icons wait for it. A tap refreshes the list and loads its icons, two independent kinds
 * of AsyncTask started with execute() from two code paths: refresh_list downloads the list
 * (LIST_MS) and load_icons downloads ICONS icons (ICON_MS each). The downloads block, as the
 * network fetches they stand for do, so the waits are the same on every backend and the CPU
 * stays free for the display. execute() puts both on the serial executor, which runs one task
 * at a time although the developer expected parallel runs, so the icons queue behind the list
 * and each other: the last waits LIST_MS + (ICONS - 1) * ICON_MS, past DiagDroid's 500 ms.
 *
 * Built a second time with ICONLIST_POOL as app-iconpool, the fix DiagDroid's case 1 gives:
 * executeOnExecutor(THREAD_POOL_EXECUTOR), whose 5 core threads run the list and its icons at
 * once, so no task waits for another and nothing runs 500 ms.
 *
 * The two code paths are functions of their own (noinline), as in the app DiagDroid studied,
 * so their tasks' execution contexts differ in two frames. No logging here: every trace event
 * comes from the platform.
 */
#include <errno.h>
#include <time.h>

#include "bench_ui.h"

#define LIST_MS 300
#define ICONS 4
#define ICON_MS 100

/* A download: blocking, not CPU, like the network fetch it stands for. */
static uint64_t download(struct bench_ui *ui, uint64_t ms)
{
	struct timespec d = { .tv_sec = (time_t)(ms / 1000),
			      .tv_nsec = (long)(ms % 1000) * 1000000L };
	(void)ui;
	while (nanosleep(&d, &d) != 0 && errno == EINTR)
		;
	return ms;
}

static const struct bench_job_ops download_ops = { .work = download };

static struct pl_executor *executor(struct bench_ui *ui)
{
#ifdef ICONLIST_POOL
	return pl_app_thread_pool_executor(ui->app);
#else
	return pl_app_serial_executor(ui->app);
#endif
}

static __attribute__((noinline)) void refresh_list(struct bench_ui *ui)
{
	bench_ui_start_job(ui, LIST_MS, executor(ui), &download_ops);
}

static __attribute__((noinline)) void load_icons(struct bench_ui *ui)
{
	for (int i = 0; i < ICONS; i++)
		bench_ui_start_job(ui, ICON_MS, executor(ui), &download_ops);
}

static void on_tap(struct bench_ui *ui, int32_t param)
{
	(void)param;
	refresh_list(ui);
	load_icons(ui);
}

static int on_create(struct pl_app *app, void *ctx)
{
	return bench_ui_create(app, ctx);
}

int main(void)
{
	static const struct pl_app_ops ops = { .on_create = on_create, .on_key = bench_ui_on_key };
	static struct bench_ui ui = { .on_tap = on_tap };

#ifdef ICONLIST_POOL
	return pl_app_main("iconpool", &ops, &ui);
#else
	return pl_app_main("iconlist", &ops, &ui);
#endif
}
