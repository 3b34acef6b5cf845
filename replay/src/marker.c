/* The frame marker; see panlab/marker.h. */
#include "panlab/marker.h"
#include "panlab/ground_truth_format.h"

#include <string.h>

#define PAYLOAD_BYTES (1 + 4 + 4 + 4 * PL_MARKER_MAX_INPUTS)
#define IDS_AT 9	/* count, pid, frame, then the ids */
#define BITS (16 + 8 * PAYLOAD_BYTES + 16)

_Static_assert(BITS <= PL_MARKER_ROWS * PL_MARKER_COLS, "the marker's bits fit its strip");

/* CRC-16/CCITT-FALSE (poly 0x1021, init 0xffff), bitwise: 33 bytes per frame. */
static uint16_t crc16(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xffff;
	for (size_t i = 0; i < n; i++) {
		crc ^= (uint16_t)(p[i] << 8);
		for (int b = 0; b < 8; b++)
			crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
	}
	return crc;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int b = 0; b < 4; b++)
		p[b] = (uint8_t)(v >> (24 - 8 * b));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void encode_payload(const struct pl_marker *m, uint8_t out[PAYLOAD_BYTES])
{
	uint32_t count = m->count < PL_MARKER_MAX_INPUTS ? m->count : PL_MARKER_MAX_INPUTS;
	memset(out, 0, PAYLOAD_BYTES);
	out[0] = (uint8_t)count;
	put32(out + 1, m->pid);
	put32(out + 5, m->frame);
	for (uint32_t i = 0; i < count; i++)
		put32(out + IDS_AT + 4 * i, m->input_ids[i]);
}

static uint8_t *cell_at(uint8_t *pixels, uint32_t height_px, uint32_t stride_bytes, unsigned bit)
{
	uint32_t row = height_px - PL_MARKER_HEIGHT_PX + (bit / PL_MARKER_COLS) * PL_MARKER_CELL_PX;
	uint32_t col = (bit % PL_MARKER_COLS) * PL_MARKER_CELL_PX;
	return pixels + (size_t)row * stride_bytes + (size_t)col * 4;
}

void pl_marker_draw(uint8_t *pixels, uint32_t width_px, uint32_t height_px, uint32_t stride_bytes,
		    const struct pl_marker *m)
{
	if (width_px < PL_MARKER_WIDTH_PX || height_px < PL_MARKER_HEIGHT_PX)
		return;
	uint8_t bytes[2 + PAYLOAD_BYTES + 2];
	bytes[0] = PL_MARKER_START >> 8;
	bytes[1] = PL_MARKER_START & 0xff;
	encode_payload(m, bytes + 2);
	uint16_t crc = crc16(bytes + 2, PAYLOAD_BYTES);
	bytes[2 + PAYLOAD_BYTES] = (uint8_t)(crc >> 8);
	bytes[3 + PAYLOAD_BYTES] = (uint8_t)crc;
	for (unsigned bit = 0; bit < PL_MARKER_ROWS * PL_MARKER_COLS; bit++) {
		/* Cells past the code are black: the whole strip is the marker's. */
		int one = bit < BITS && (bytes[bit / 8] >> (7 - bit % 8) & 1);
		uint8_t *cell = cell_at(pixels, height_px, stride_bytes, bit);
		for (int y = 0; y < PL_MARKER_CELL_PX; y++)
			for (int x = 0; x < PL_MARKER_CELL_PX; x++) {
				uint8_t *px = cell + (size_t)y * stride_bytes + (size_t)x * 4;
				px[0] = px[1] = px[2] = one ? 0xff : 0;
				px[3] = 0;
			}
	}
}

/* 1 or 0 for a pure white or black cell, -1 for anything else. */
static int read_cell(const uint8_t *pixels, uint32_t height_px, uint32_t stride_bytes, unsigned bit)
{
	const uint8_t *cell = cell_at((uint8_t *)pixels, height_px, stride_bytes, bit);
	uint8_t first = cell[0];
	if (first != 0 && first != 0xff)
		return -1;
	for (int y = 0; y < PL_MARKER_CELL_PX; y++)
		for (int x = 0; x < PL_MARKER_CELL_PX; x++) {
			const uint8_t *px = cell + (size_t)y * stride_bytes + (size_t)x * 4;
			if (px[0] != first || px[1] != first || px[2] != first)
				return -1;
		}
	return first ? 1 : 0;
}

enum pl_marker_status pl_marker_read(const uint8_t *pixels, uint32_t width_px, uint32_t height_px,
				     uint32_t stride_bytes, struct pl_marker *out, const char **why)
{
	const char *reason = NULL;
	if (width_px < PL_MARKER_WIDTH_PX || height_px < PL_MARKER_HEIGHT_PX)
		return PL_MARKER_NONE;
	unsigned start_cells = 0;
	for (unsigned bit = 0; bit < 16; bit++)
		start_cells += read_cell(pixels, height_px, stride_bytes, bit) ==
			       (int)(PL_MARKER_START >> (15 - bit) & 1);
	if (start_cells < PL_MARKER_START_MIN_CELLS)
		return PL_MARKER_NONE;
	uint8_t bytes[2 + PAYLOAD_BYTES + 2] = { 0 };
	for (unsigned bit = 0; bit < BITS && !reason; bit++) {
		int v = read_cell(pixels, height_px, stride_bytes, bit);
		if (v < 0)
			reason = "a cell is neither black nor white";
		else
			bytes[bit / 8] |= (uint8_t)(v << (7 - bit % 8));
	}
	if (!reason && (bytes[0] << 8 | bytes[1]) != PL_MARKER_START)
		reason = "damaged start pattern";
	else if (!reason && bytes[2] > PL_MARKER_MAX_INPUTS)
		reason = "input count above the maximum";
	else if (!reason && crc16(bytes + 2, PAYLOAD_BYTES) !=
				    (uint16_t)(bytes[2 + PAYLOAD_BYTES] << 8 | bytes[3 + PAYLOAD_BYTES]))
		reason = "checksum mismatch";
	if (reason) {
		if (why)
			*why = reason;
		return PL_MARKER_UNREADABLE;
	}
	memset(out, 0, sizeof(*out));
	out->count = bytes[2];
	out->pid = get32(bytes + 3);
	out->frame = get32(bytes + 7);
	for (uint32_t i = 0; i < out->count; i++)
		out->input_ids[i] = get32(bytes + 2 + IDS_AT + 4 * i);
	return PL_MARKER_OK;
}

enum pl_marker_status pl_marker_seen_check(struct pl_marker_seen *s, enum pl_marker_status st,
					   const struct pl_marker *m)
{
	if (st != PL_MARKER_OK)
		return st;
	for (unsigned i = 0; i < s->n; i++) {
		if (s->pid[i] != m->pid)
			continue;
		if (m->frame <= s->frame[i])
			return PL_MARKER_REPEAT;
		s->frame[i] = m->frame;
		return PL_MARKER_OK;
	}
	/* A new process takes a free entry, or the oldest one's. */
	unsigned k = s->n < PL_MARKER_SEEN_PIDS ? s->n++ : s->next++ % PL_MARKER_SEEN_PIDS;
	s->pid[k] = m->pid;
	s->frame[k] = m->frame;
	return PL_MARKER_OK;
}

int pl_marker_gt_frame(char *buf, size_t size, uint64_t seq, uint64_t t_ns,
		       enum pl_marker_status status, const struct pl_marker *m)
{
	const char *word = status == PL_MARKER_OK ? PL_GT_WORD_ANSWERS :
			   status == PL_MARKER_UNREADABLE ? PL_GT_WORD_UNREADABLE :
			   status == PL_MARKER_REPEAT ? PL_GT_WORD_REPEAT : PL_GT_WORD_NO_MARKER;
	return pl_gt_frame(buf, size, seq, t_ns, word, m ? m->input_ids : NULL, m ? m->count : 0);
}
