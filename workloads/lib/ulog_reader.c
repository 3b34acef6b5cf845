/* Userspace logger: consumer side. See include/panlab/ulog_reader.h. */
#include "panlab/ulog_reader.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ulog_layout.h"

int pl_ulog_reader_open(struct pl_ulog_reader *r, const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || (size_t)st.st_size < PL_ULOG_HDR_BYTES) {
		close(fd);
		return -EPROTO;
	}
	void *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int err = base == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	const struct pl_ulog_file_hdr *h = base;
	bool whole = memcmp(h->magic, PL_ULOG_MAGIC, sizeof(h->magic)) == 0;
	atomic_thread_fence(memory_order_acquire);	/* the fields below were written before it */
	size_t need = PL_ULOG_HDR_BYTES + (size_t)h->nslots * h->slot_stride_bytes;
	if (!whole || need > (size_t)st.st_size ||
	    h->slot_stride_bytes !=
		    sizeof(struct pl_ulog_slot) + (size_t)h->slot_records * sizeof(struct pl_event)) {
		munmap(base, (size_t)st.st_size);
		return -EPROTO;
	}
	r->base = base;
	r->bytes = (size_t)st.st_size;
	return 0;
}

void pl_ulog_reader_close(struct pl_ulog_reader *r)
{
	if (r->base)
		munmap(r->base, r->bytes);
	r->base = NULL;
	r->bytes = 0;
}

unsigned pl_ulog_reader_slots(const struct pl_ulog_reader *r)
{
	return ((const struct pl_ulog_file_hdr *)r->base)->nslots;
}

uint32_t pl_ulog_reader_pid(const struct pl_ulog_reader *r)
{
	return ((const struct pl_ulog_file_hdr *)r->base)->pid;
}

uint64_t pl_ulog_reader_unslotted_lost(const struct pl_ulog_reader *r)
{
	struct pl_ulog_file_hdr *h = r->base;
	return atomic_load(&h->unslotted_lost);
}

void pl_ulog_reader_slot(const struct pl_ulog_reader *r, unsigned slot,
			 struct pl_ulog_slot_info *out)
{
	struct pl_ulog_slot *s = pl_ulog_slot_at(r->base, slot);

	out->tid = atomic_load_explicit(&s->tid, memory_order_acquire);
	out->pending = atomic_load_explicit(&s->head, memory_order_acquire) -
		       atomic_load_explicit(&s->tail, memory_order_relaxed);
	out->lost = atomic_load_explicit(&s->lost, memory_order_relaxed);
}

uint32_t pl_ulog_reader_peek_tid(const struct pl_ulog_reader *r, unsigned slot, uint32_t index)
{
	const struct pl_ulog_file_hdr *h = r->base;
	const struct pl_ulog_slot *s = pl_ulog_slot_at(r->base, slot);
	uint32_t pos = s->rpos + index;

	if (pos >= h->slot_records)
		pos -= h->slot_records;
	return s->ring[pos].tid;
}

size_t pl_ulog_reader_drain(struct pl_ulog_reader *r, unsigned slot, struct pl_event *out,
			    size_t max)
{
	const struct pl_ulog_file_hdr *h = r->base;
	struct pl_ulog_slot *s = pl_ulog_slot_at(r->base, slot);
	uint32_t head = atomic_load_explicit(&s->head, memory_order_acquire);
	uint32_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
	size_t n = head - tail;

	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++) {
		out[i] = s->ring[s->rpos];
		s->rpos = s->rpos + 1 == h->slot_records ? 0 : s->rpos + 1;
	}
	atomic_store_explicit(&s->tail, tail + (uint32_t)n, memory_order_release);
	return n;
}
