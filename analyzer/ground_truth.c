/* SPDX-License-Identifier: MIT */
/* Ground-truth reader: strict line format of include/FORMAT.md, errors as file:line. */
#include "panlab/ground_truth.h"
#include "panlab/ground_truth_format.h"
#include "panlab/read_file.h"
#include "panlab/trace.h"

#include <stdlib.h>
#include <string.h>

/* A frame line: frame, seq, time, "answers" and up to 64 input ids (a marker holds 8). */
#define MAX_FIELDS 68

struct line {
	const char *name;
	uint64_t no;
	size_t nfields;
	const char *field[MAX_FIELDS];
	size_t flen[MAX_FIELDS];
};

static const char *quote_field(char *q, size_t qsize, const struct line *l, size_t i)
{
	return pl_quote(q, qsize, l->field[i], l->flen[i] > 40 ? 40 : l->flen[i]);
}

/* Splits on single spaces; an empty field means two spaces or an edge space. */
static int split(struct line *l, const char *s, size_t n, struct pl_error *err)
{
	size_t start = 0;

	l->nfields = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] == '\0') {
			pl_error_at_line(err, l->name, l->no,
					 "NUL byte at column %zu, expected text", i + 1);
			return -1;
		}
		if (i < n && s[i] != ' ')
			continue;
		if (i == start) {
			pl_error_at_line(err, l->name, l->no,
					 "empty field at column %zu, expected fields separated by one space",
					 i + 1);
			return -1;
		}
		if (l->nfields == MAX_FIELDS) {
			pl_error_at_line(err, l->name, l->no,
					 "more than %d fields, expected at most %d",
					 MAX_FIELDS, MAX_FIELDS);
			return -1;
		}
		l->field[l->nfields] = s + start;
		l->flen[l->nfields++] = i - start;
		start = i + 1;
	}
	return 0;
}

static int expect_fields(const struct line *l, size_t n, const char *usage,
			 struct pl_error *err)
{
	if (l->nfields == n)
		return 0;
	pl_error_at_line(err, l->name, l->no, "%zu fields, expected %zu: %s",
			 l->nfields, n, usage);
	return -1;
}

static int number(const struct line *l, size_t i, const char *what, uint64_t max,
		  uint64_t *v, struct pl_error *err)
{
	char q[64];
	uint64_t x = 0;
	size_t k;

	for (k = 0; k < l->flen[i]; k++) {
		unsigned d = (unsigned char)l->field[i][k] - '0';

		if (d > 9 || x > (max - d) / 10)
			break;
		x = x * 10 + d;
	}
	if (k != l->flen[i] || (k > 1 && l->field[i][0] == '0')) {
		pl_error_at_line(err, l->name, l->no,
				 "%s is \"%s\", expected a decimal integer up to %llu",
				 what, quote_field(q, sizeof(q), l, i), (unsigned long long)max);
		return -1;
	}
	*v = x;
	return 0;
}

static int is(const struct line *l, size_t i, const char *word)
{
	return l->flen[i] == strlen(word) && memcmp(l->field[i], word, l->flen[i]) == 0;
}

static void push(void **arr, uint64_t *n, size_t size, const void *item)
{
	/* Double at powers of two; the count itself tells the capacity. */
	if ((*n & (*n - 1)) == 0)
		*arr = pl_xrealloc(*arr, (size_t)(*n ? *n * 2 : 1), size);
	memcpy((char *)*arr + (size_t)*n * size, item, size);
	(*n)++;
}

static int check_seq(const struct line *l, uint64_t seq, uint64_t expected,
		     const char *what, struct pl_error *err)
{
	if (seq == expected)
		return 0;
	pl_error_at_line(err, l->name, l->no,
			 "%s seq %llu, expected %llu (%ss count from 0 in file order)",
			 what, (unsigned long long)seq, (unsigned long long)expected, what);
	return -1;
}

static int check_order(const struct line *l, uint64_t t, uint64_t n, uint64_t prev,
		       const char *what, struct pl_error *err)
{
	if (n == 0 || t >= prev)
		return 0;
	pl_error_at_line(err, l->name, l->no,
			 "%s time %llu ns is before the previous %s's %llu ns, expected non-decreasing times",
			 what, (unsigned long long)t, what, (unsigned long long)prev);
	return -1;
}

static int once(const struct line *l, bool *seen, const char *what, struct pl_error *err)
{
	if (!*seen) {
		*seen = true;
		return 0;
	}
	pl_error_at_line(err, l->name, l->no, "second '%s' record, expected one", what);
	return -1;
}

static int parse_input(const struct line *l, struct pl_ground_truth *gt, struct pl_error *err)
{
	static const char usage_tap[] = "input <seq> <t_ns> tap <x> <y>";
	static const char usage_key[] = "input <seq> <t_ns> key <code>";
	struct pl_gt_input in = { 0 };
	uint64_t seq, x, y, code;
	char q[64];

	if (l->nfields < 4)
		return expect_fields(l, 6, usage_tap, err);
	if (number(l, 1, "input seq", PL_COUNT_MAX, &seq, err) < 0 ||
	    number(l, 2, "input time", PL_COUNT_MAX, &in.t_ns, err) < 0 ||
	    check_seq(l, seq, gt->ninputs, "input", err) < 0)
		return -1;
	if (is(l, 3, PL_GT_WORD_TAP)) {
		if (expect_fields(l, 6, usage_tap, err) < 0 ||
		    number(l, 4, "tap x", UINT32_MAX, &x, err) < 0 ||
		    number(l, 5, "tap y", UINT32_MAX, &y, err) < 0)
			return -1;
		in.kind = PL_INPUT_TAP;
		in.x = (uint32_t)x;
		in.y = (uint32_t)y;
	} else if (is(l, 3, PL_GT_WORD_KEY)) {
		if (expect_fields(l, 5, usage_key, err) < 0 ||
		    number(l, 4, "key code", UINT32_MAX, &code, err) < 0)
			return -1;
		in.kind = PL_INPUT_KEY;
		in.code = (uint32_t)code;
	} else {
		pl_error_at_line(err, l->name, l->no,
				 "input kind \"%s\", expected tap or key",
				 quote_field(q, sizeof(q), l, 3));
		return -1;
	}
	uint64_t prev = gt->ninputs ? gt->inputs[gt->ninputs - 1].t_ns : 0;

	if (check_order(l, in.t_ns, gt->ninputs, prev, "input", err) < 0)
		return -1;
	push((void **)&gt->inputs, &gt->ninputs, sizeof(in), &in);
	return 0;
}

/* The marker words after a frame's time: none, no-marker, unreadable, answers [ID...]. */
static int parse_marker(const struct line *l, struct pl_ground_truth *gt,
			enum pl_gt_marker *marker, struct pl_error *err)
{
	static const char usage[] =
		"frame <seq> <t_ns> [no-marker | unreadable | repeat | answers <input>...]";
	char q[64];

	*marker = PL_GT_MARKER_UNREAD;
	if (l->nfields == 3)
		return 0;
	if (is(l, 3, PL_GT_WORD_NO_MARKER) || is(l, 3, PL_GT_WORD_UNREADABLE) ||
	    is(l, 3, PL_GT_WORD_REPEAT)) {
		*marker = is(l, 3, PL_GT_WORD_UNREADABLE) ? PL_GT_MARKER_UNREADABLE :
			  is(l, 3, PL_GT_WORD_REPEAT)	  ? PL_GT_MARKER_REPEAT :
							    PL_GT_MARKER_ABSENT;
		return expect_fields(l, 4, usage, err);
	}
	if (!is(l, 3, PL_GT_WORD_ANSWERS)) {
		pl_error_at_line(err, l->name, l->no,
				 "frame marker \"%s\", expected no-marker, unreadable, repeat or answers",
				 quote_field(q, sizeof(q), l, 3));
		return -1;
	}
	*marker = PL_GT_MARKER_ANSWERS;
	for (size_t i = 4; i < l->nfields; i++) {
		uint64_t id;

		if (number(l, i, "answered input", UINT32_MAX, &id, err) < 0)
			return -1;
		push((void **)&gt->answers, &gt->nanswers, sizeof(id), &id);
	}
	return 0;
}

static int parse_frame(const struct line *l, struct pl_ground_truth *gt, struct pl_error *err)
{
	uint64_t seq, t, first = gt->nanswers, n = gt->nframes;
	uint64_t prev = gt->nframes ? gt->frames_ns[gt->nframes - 1] : 0;
	enum pl_gt_marker marker;

	if (l->nfields < 3)
		return expect_fields(l, 3, "frame <seq> <t_ns>", err);
	if (number(l, 1, "frame seq", PL_COUNT_MAX, &seq, err) < 0 ||
	    number(l, 2, "frame time", PL_COUNT_MAX, &t, err) < 0 ||
	    check_seq(l, seq, gt->nframes, "frame", err) < 0 ||
	    check_order(l, t, gt->nframes, prev, "frame", err) < 0 ||
	    parse_marker(l, gt, &marker, err) < 0)
		return -1;
	push((void **)&gt->frame_marker, &n, sizeof(marker), &marker);
	n = gt->nframes;
	push((void **)&gt->answer_first, &n, sizeof(first), &first);
	gt->unreadable_frames += marker == PL_GT_MARKER_UNREADABLE;
	push((void **)&gt->frames_ns, &gt->nframes, sizeof(t), &t);
	return 0;
}

static int parse_record(const struct line *l, struct pl_ground_truth *gt, struct pl_error *err)
{
	char q[64];

	if (is(l, 0, PL_GT_WORD_INPUT))
		return parse_input(l, gt, err);
	if (is(l, 0, PL_GT_WORD_FRAME))
		return parse_frame(l, gt, err);
	if (is(l, 0, PL_GT_WORD_READY))
		return expect_fields(l, 2, "ready <t_ns>", err) < 0 ||
		       once(l, &gt->has_ready, "ready", err) < 0 ||
		       number(l, 1, "ready time", PL_COUNT_MAX, &gt->ready_ns, err) < 0 ? -1 : 0;
	if (is(l, 0, PL_GT_WORD_END))
		return expect_fields(l, 2, "end <t_ns>", err) < 0 ||
		       once(l, &gt->has_end, "end", err) < 0 ||
		       number(l, 1, "end time", PL_COUNT_MAX, &gt->end_ns, err) < 0 ? -1 : 0;
	pl_error_at_line(err, l->name, l->no,
			 "unknown record \"%s\", expected ready, input, frame or end",
			 quote_field(q, sizeof(q), l, 0));
	return -1;
}

static int parse_header(const struct line *l, struct pl_error *err)
{
	uint64_t version;
	char q[64];

	if (l->nfields != 2 || !is(l, 0, PL_GT_MAGIC)) {
		pl_error_at_line(err, l->name, l->no,
				 "\"%s\" is not a ground-truth header, expected \"%s %d\"",
				 quote_field(q, sizeof(q), l, 0), PL_GT_MAGIC, PL_GT_VERSION);
		return -1;
	}
	if (number(l, 1, "version", UINT32_MAX, &version, err) < 0)
		return -1;
	if (version != PL_GT_VERSION) {
		pl_error_at_line(err, l->name, l->no, "unsupported version %llu, expected %d",
				 (unsigned long long)version, PL_GT_VERSION);
		return -1;
	}
	return 0;
}

/*
 * A complete file: every writer ends its inputs with "end" (a file cut short
 * loses it), and the inputs lie between "ready" and "end".
 */
static int check_whole(const char *name, uint64_t lines, const struct pl_ground_truth *gt,
		       struct pl_error *err)
{
	const struct pl_gt_input *first = gt->ninputs ? &gt->inputs[0] : NULL;
	const struct pl_gt_input *last = gt->ninputs ? &gt->inputs[gt->ninputs - 1] : NULL;

	if (!gt->has_end) {
		pl_error_at_line(err, name, lines + 1,
				 "end of file without an \"end\" record, expected the writer's end marker (a truncated file?)");
		return -1;
	}
	if (first && gt->has_ready && first->t_ns < gt->ready_ns) {
		pl_error_file(err, name, "input 0 at %llu ns is before ready at %llu ns, expected inputs after ready",
			      (unsigned long long)first->t_ns, (unsigned long long)gt->ready_ns);
		return -1;
	}
	if (last && last->t_ns > gt->end_ns) {
		pl_error_file(err, name, "input %llu at %llu ns is after end at %llu ns, expected inputs before end",
			      (unsigned long long)(gt->ninputs - 1), (unsigned long long)last->t_ns,
			      (unsigned long long)gt->end_ns);
		return -1;
	}
	return 0;
}

/*
 * A marker names inputs the display has already received: an id past the
 * last input, or an input injected after the frame was flushed, would
 * match a transaction to a frame that cannot show it.
 */
static int check_answers(const struct pl_ground_truth *gt, const char *name,
			 struct pl_error *err)
{
	for (uint64_t f = 0; f < gt->nframes; f++) {
		for (uint64_t a = gt->answer_first[f];
		     gt->frame_marker[f] == PL_GT_MARKER_ANSWERS && a < gt->answer_first[f + 1]; a++) {
			uint64_t id = gt->answers[a];

			if (id >= gt->ninputs) {
				pl_error_file(err, name, "frame %llu answers input %llu, which does not exist, expected an input seq below %llu",
					      (unsigned long long)f, (unsigned long long)id,
					      (unsigned long long)gt->ninputs);
				return -1;
			}
			if (gt->inputs[id].t_ns > gt->frames_ns[f]) {
				pl_error_file(err, name, "frame %llu at %llu ns answers input %llu injected later, at %llu ns, expected inputs injected before the frame",
					      (unsigned long long)f, (unsigned long long)gt->frames_ns[f],
					      (unsigned long long)id,
					      (unsigned long long)gt->inputs[id].t_ns);
				return -1;
			}
		}
	}
	return 0;
}

/* Ends frame f's answers where frame f + 1's begin, and finds the last frame naming each input. */
static int index_answers(struct pl_ground_truth *gt, const char *name, struct pl_error *err)
{
	uint64_t *first = pl_xrealloc(gt->answer_first, (size_t)(gt->nframes + 1), sizeof(*first));
	uint64_t *last = pl_xcalloc((size_t)(gt->ninputs + 1), sizeof(*last));

	gt->answer_first = first;
	first[gt->nframes] = gt->nanswers;
	if (check_answers(gt, name, err) < 0) {
		free(last);
		pl_ground_truth_free(gt);
		return -1;
	}
	for (uint64_t i = 0; i < gt->ninputs; i++)
		last[i] = UINT64_MAX;
	for (uint64_t f = 0; f < gt->nframes; f++)
		for (uint64_t a = first[f]; gt->frame_marker[f] == PL_GT_MARKER_ANSWERS && a < first[f + 1]; a++)
			last[gt->answers[a]] = f;
	gt->marker_frame = last;
	return 0;
}

int pl_ground_truth_parse(const char *name, const char *buf, size_t len,
			  struct pl_ground_truth *out, struct pl_error *err)
{
	struct line l = { .name = name };
	bool header = false;
	size_t pos = 0;

	memset(out, 0, sizeof(*out));
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		const char *s = buf + pos;

		pos += n + 1;
		l.no++;
		if (n == 0 || s[0] == '#')
			continue;
		if (split(&l, s, n, err) < 0 ||
		    (header ? parse_record(&l, out, err) : parse_header(&l, err)) < 0) {
			pl_ground_truth_free(out);
			return -1;
		}
		header = true;
	}
	if (!header) {
		pl_error_at_line(err, name, l.no + 1, "end of file, expected header \"%s %d\"",
				 PL_GT_MAGIC, PL_GT_VERSION);
		return -1;
	}
	if (check_whole(name, l.no, out, err) < 0) {
		pl_ground_truth_free(out);
		return -1;
	}
	return index_answers(out, name, err);
}

int pl_ground_truth_read_file(const char *path, struct pl_ground_truth *out,
			      struct pl_error *err)
{
	char *buf;
	size_t len;

	memset(out, 0, sizeof(*out));
	if (pl_read_file(path, PL_CAP_TEXT_BYTES, "a ground-truth file", &buf, &len, err) < 0)
		return -1;
	int rc = pl_ground_truth_parse(path, buf, len, out, err);

	free(buf);
	return rc;
}

void pl_ground_truth_free(struct pl_ground_truth *gt)
{
	free(gt->inputs);
	free(gt->frames_ns);
	free(gt->frame_marker);
	free(gt->answer_first);
	free(gt->answers);
	free(gt->marker_frame);
	memset(gt, 0, sizeof(*gt));
}

const char *pl_gt_rule_name(enum pl_gt_rule rule)
{
	return rule == PL_GT_RULE_MARKER ? "marker" : rule == PL_GT_RULE_WINDOW ? "window" : "none";
}

/* A ground truth built by hand (tests) may leave the marker arrays NULL: nothing was read. */
static bool unmarked(const struct pl_ground_truth *gt, uint64_t f)
{
	return !gt->frame_marker || gt->frame_marker[f] == PL_GT_MARKER_UNREAD ||
	       gt->frame_marker[f] == PL_GT_MARKER_ABSENT;
}

enum pl_gt_rule pl_ground_truth_output(const struct pl_ground_truth *gt, uint64_t i,
				       uint64_t *t_out_ns)
{
	if (gt->marker_frame && gt->marker_frame[i] != UINT64_MAX) {
		*t_out_ns = gt->frames_ns[gt->marker_frame[i]];
		return PL_GT_RULE_MARKER;
	}
	uint64_t from = gt->inputs[i].t_ns;
	bool bounded = i + 1 < gt->ninputs || gt->has_end;
	uint64_t until = i + 1 < gt->ninputs ? gt->inputs[i + 1].t_ns : gt->end_ns;
	/* Frames are sorted: binary search for the first frame at or after `until`. */
	uint64_t lo = 0, hi = gt->nframes;

	while (bounded && lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (gt->frames_ns[mid] < until)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (hi > 0 && gt->frames_ns[hi - 1] >= from && !unmarked(gt, hi - 1))
		hi--;
	if (hi == 0 || gt->frames_ns[hi - 1] < from)
		return PL_GT_RULE_NONE;
	*t_out_ns = gt->frames_ns[hi - 1];
	return PL_GT_RULE_WINDOW;
}
