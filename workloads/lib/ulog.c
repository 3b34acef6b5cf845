/* Userspace logger: producer side. See include/panlab/ulog.h. */
#include "panlab/ulog.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ulog_layout.h"

bool pl_ulog_on;

static void *log_base;
static size_t log_bytes;
/* Bumped by every open so threads re-claim a slot in a new buffer. */
static _Atomic unsigned log_generation;

/* Its destructor retires the slot of an exiting thread. */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* One thread-local block: armel reaches TLS through a kernel helper call, once per event. */
struct thread_log {
	struct pl_ulog_slot *slot;
	uint32_t tid;
	unsigned generation;
	uintptr_t stack_hi; /* end of the thread's stack: a context walk stops below it */
};
static __thread struct thread_log tls;

int pl_ulog_open(const char *path, size_t total_bytes, unsigned nslots)
{
	size_t min_slot = sizeof(struct pl_ulog_slot) + sizeof(struct pl_event);
	if (nslots == 0 || total_bytes < PL_ULOG_HDR_BYTES + nslots * min_slot)
		return -EINVAL;
	size_t stride = (total_bytes - PL_ULOG_HDR_BYTES) / nslots;
	uint32_t records = (uint32_t)((stride - sizeof(struct pl_ulog_slot)) / sizeof(struct pl_event));
	stride = sizeof(struct pl_ulog_slot) + (size_t)records * sizeof(struct pl_event);
	size_t bytes = PL_ULOG_HDR_BYTES + stride * nslots;

	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	/* tmpfs allocates pages on first touch, so idle slots cost nothing. */
	if (ftruncate(fd, (off_t)bytes) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int err = base == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;

	struct pl_ulog_file_hdr *h = base;
	h->pid = (uint32_t)getpid();
	h->nslots = nslots;
	h->slot_records = records;
	h->slot_stride_bytes = (uint32_t)stride;
	/* The magic last: a collector draining while we start skips the file until it is whole. */
	atomic_thread_fence(memory_order_release);
	memcpy(h->magic, PL_ULOG_MAGIC, sizeof(h->magic));

	/* Before logging starts: the clock's set-up reads sysfs, which no event should wait for. */
	pl_trace_clock_setup();
	log_base = base;
	log_bytes = bytes;
	atomic_fetch_add(&log_generation, 1);
	pl_ulog_on = true;
	return 0;
}

int pl_ulog_open_from_env(void)
{
	const char *v = getenv("PANLAB_TRACE");
	if (!v || strcmp(v, "1") != 0)
		return 0;
	char path[64];
	snprintf(path, sizeof(path), PL_ULOG_PATH_PREFIX "%d", (int)getpid());
	return pl_ulog_open(path, PL_ULOG_DEFAULT_BYTES, PL_ULOG_SLOTS);
}

void pl_ulog_close(void)
{
	if (!log_base)
		return;
	pl_ulog_on = false;
	munmap(log_base, log_bytes);
	log_base = NULL;
	log_bytes = 0;
}

static void retire_slot(void *slot)
{
	/* Not if the buffer was closed or replaced since the thread claimed the slot. */
	if (log_base && slot == tls.slot && tls.generation == atomic_load(&log_generation))
		atomic_store_explicit(&tls.slot->retired, 1, memory_order_release);
}

static void make_exit_key(void)
{
	pthread_key_create(&exit_key, retire_slot);
}

/* An unused slot if any is left, else one whose thread exited. */
static struct pl_ulog_slot *find_slot(struct pl_ulog_file_hdr *h)
{
	/* Counts up to nslots and no further, however often slot-less threads retry. */
	uint32_t i = atomic_load(&h->next_slot);
	while (i < h->nslots && !atomic_compare_exchange_weak(&h->next_slot, &i, i + 1))
		;
	if (i < h->nslots) {
		struct pl_ulog_slot *s = pl_ulog_slot_at(log_base, i);
		s->records = h->slot_records;
		return s;
	}
	for (i = 0; i < h->nslots; i++) {
		struct pl_ulog_slot *s = pl_ulog_slot_at(log_base, i);
		uint32_t one = 1;
		/* acq_rel: we continue from the old owner's wpos. */
		if (atomic_compare_exchange_strong_explicit(&s->retired, &one, 0, memory_order_acq_rel,
							    memory_order_relaxed))
			return s;
	}
	return NULL;
}

static struct pl_ulog_slot *claim_slot(struct thread_log *t)
{
	t->generation = atomic_load(&log_generation);
	t->tid = (uint32_t)syscall(SYS_gettid);
	t->slot = find_slot(log_base);
	if (!t->slot)
		return NULL;
	atomic_store_explicit(&t->slot->tid, t->tid, memory_order_release);
	/* Once per thread (the main thread's reads /proc/self/maps), not per context walk. */
	pthread_attr_t attr;
	void *lo;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		if (pthread_attr_getstack(&attr, &lo, &size) == 0)
			t->stack_hi = (uintptr_t)lo + size;
		pthread_attr_destroy(&attr);
	}
	pthread_once(&exit_key_once, make_exit_key);
	pthread_setspecific(exit_key, t->slot);
	return t->slot;
}

/*
 * Frame records as the compiler lays them out with -fno-omit-frame-pointer: GCC in ARM state
 * (no APCS frame) points fp at the saved lr with the caller's fp in the word below; AAPCS64
 * and the x86-64 psABI put the caller's fp at fp and the return address above it.
 */
#if defined(__arm__) && !defined(__clang__)
#define FRAME_RETURN(fp) ((fp)[0])
#define FRAME_CALLER(fp) ((fp)[-1])
#else
#define FRAME_RETURN(fp) ((fp)[1])
#define FRAME_CALLER(fp) ((fp)[0])
#endif

/*
 * The return addresses of the frames above fp's. Each step checks that the caller's frame
 * lies above this one and inside the thread's stack, so a frame without a frame pointer
 * (libc's) ends the walk instead of faulting.
 */
#ifdef __SANITIZE_ADDRESS__
/* The walk reads the stack of frames it does not own, which ASan poisons around its locals. */
#define WALK_ATTRIBUTES __attribute__((noinline, no_sanitize_address))
#else
#define WALK_ATTRIBUTES inline __attribute__((always_inline))
#endif
static WALK_ATTRIBUTES void walk(const uintptr_t *fp, uintptr_t stack_hi,
				 uint32_t frames[PL_CONTEXT_FRAMES])
{
	for (unsigned i = 0; i < PL_CONTEXT_FRAMES; i++) {
		const uintptr_t *caller = (const uintptr_t *)FRAME_CALLER(fp);
		if (caller <= fp || (uintptr_t)caller % sizeof(uintptr_t) != 0 ||
		    (uintptr_t)(caller + 2) > stack_hi)
			break;
		fp = caller;
		frames[i] = (uint32_t)FRAME_RETURN(fp);
	}
}

/*
 * The hot path (the target: under 100 guest instructions an event): one TLS lookup, the ring's
 * producer line only, the counter for the time, and one barrier (the release of head). With
 * fp (a submit), a TASK_CONTEXT record follows in the same reservation, with the same time:
 * the walk from fp, after the slot claim has found the thread's stack.
 */
static inline __attribute__((always_inline)) void emit(uint16_t type, uint64_t a0, uint32_t a1,
						       uint32_t a2, const uintptr_t *fp)
{
	struct thread_log *t = &tls;
	struct pl_ulog_slot *s = t->slot;
	uint32_t n = fp ? 2 : 1;

	/* A thread without a slot tries again: an exited thread may have freed one since. */
	unsigned generation = atomic_load_explicit(&log_generation, memory_order_relaxed);
	if (__builtin_expect(!s || t->generation != generation, 0)) {
		s = claim_slot(t);
		if (!s) {
			atomic_fetch_add_explicit(
				&((struct pl_ulog_file_hdr *)log_base)->unslotted_lost, n,
				memory_order_relaxed);
			return;
		}
	}
	uint32_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
	if (__builtin_expect(head - s->tail_seen + n > s->records, 0)) {
		/* acquire: the collector has finished reading what it released. */
		s->tail_seen = atomic_load_explicit(&s->tail, memory_order_acquire);
		if (head - s->tail_seen + n > s->records) {
			atomic_store_explicit(
				&s->lost, atomic_load_explicit(&s->lost, memory_order_relaxed) + n,
				memory_order_relaxed);
			return;
		}
	}
	uint32_t frames[PL_CONTEXT_FRAMES] = { 0 };
	if (fp)
		walk(fp, t->stack_hi, frames);
	uint32_t wpos = s->wpos;
	struct pl_event *e = &s->ring[wpos];
	e->ts_ns = pl_trace_clock_ns();
	e->type = type;
	e->cpu = PL_CPU_NONE;
	e->tid = atomic_load_explicit(&s->tid, memory_order_relaxed); /* t->tid, on this line */
	e->a0 = a0;
	e->a1 = a1;
	e->a2 = a2;
	wpos = wpos + 1 == s->records ? 0 : wpos + 1;
	if (fp) {
		struct pl_event *c = &s->ring[wpos];
		*c = (struct pl_event){ .ts_ns = e->ts_ns,
					.type = PL_EV_TASK_CONTEXT,
					.cpu = PL_CPU_NONE,
					.tid = e->tid,
					.a0 = frames[0] | (uint64_t)frames[1] << 32,
					.a1 = frames[2],
					.a2 = frames[3] };
		wpos = wpos + 1 == s->records ? 0 : wpos + 1;
	}
	s->wpos = wpos;
	atomic_store_explicit(&s->head, head + n, memory_order_release);
}

void pl_ulog_write(uint16_t type, uint64_t a0, uint32_t a1, uint32_t a2)
{
	emit(type, a0, a1, a2, NULL);
}

/*
 * A task's submit and its context (DiagDroid's execution context: where in the code the task
 * was scheduled). noinline: the walk starts from this function's own frame, whose return
 * address is into the platform's submit, so the context starts at the platform's caller.
 */
__attribute__((noinline)) void pl_ulog_submit_write(uint16_t type, uint64_t a0, uint32_t a1,
						    uint32_t a2)
{
	emit(type, a0, a1, a2, __builtin_frame_address(0));
}

void pl_ulog_capacity(uint32_t unit_id, uint32_t capacity, enum pl_unit_kind kind)
{
	if (pl_ulog_on)
		emit(PL_EV_UNIT_CAPACITY, unit_id, capacity, (uint32_t)kind, NULL);
}
