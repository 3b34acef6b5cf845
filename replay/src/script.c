/* The script parser: text → a flat, time-ordered action list (replay/README.md has the grammar).
 * One pass, line by line; a repeat block is parsed once with times relative to its start and then
 * copied count times, so the result needs no interpretation at replay time. */
#include "panlab/replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "panlab/error.h"
#include "panlab/read_file.h"

struct pl_script {
	struct pl_action *actions;
	size_t count;
	uint64_t duration_ns;
};

struct action_list {
	struct pl_action *v;
	size_t n, cap;
};

/* No statement has more words than this, so a longer line always fails on a word we kept. */
#define MAX_TOKENS 16
/* Longest word quoted back in an error message. */
#define QUOTE_MAX 40

#define TIME_EXPECTED "a number with a unit ns, us, ms or s (e.g. 500ms or 1.5s)"

struct token {
	const char *s;
	size_t len;
	unsigned col;
};

struct pos {
	unsigned line, col;
};

struct parser {
	const char *name;
	const char *text;
	size_t len, at;
	unsigned line;    /* line of tok[] */
	unsigned eol_col; /* column just past the line's last word: where a missing word is reported */
	struct token tok[MAX_TOKENS];
	size_t ntok;
	struct pl_error *err;
};

/* Errors are "name:line:col: message", through panlab/error.h's formatter. */
static int fail(struct parser *p, struct pos where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pl_error_vformat(p->err, snprintf(p->err->msg, sizeof(p->err->msg), "%s:%u:%u: ", p->name,
					  where.line, where.col), fmt, ap);
	va_end(ap);
	return -1;
}

static struct pos at_tok(const struct parser *p, const struct token *t)
{
	return (struct pos){p->line, t->col};
}

static struct pos at_eol(const struct parser *p)
{
	return (struct pos){p->line, p->eol_col};
}

static int qlen(const struct token *t)
{
	return t->len > QUOTE_MAX ? QUOTE_MAX : (int)t->len;
}

static bool is_control(unsigned char c)
{
	return (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f;
}

static bool ends_word(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '#' || c == '{' ||
	       c == '}' || is_control(c);
}

static bool tok_is(const struct token *t, const char *word)
{
	return t->len == strlen(word) && memcmp(t->s, word, t->len) == 0;
}

/* Splits the next non-blank, non-comment line into words; '{' and '}' are words of their own.
 * Returns 1 with ntok > 0, 0 at the end of the text, or -1 on a control byte. */
static int next_line(struct parser *p)
{
	const char *t = p->text;
	while (p->at < p->len) {
		size_t start = p->at, i = p->at;
		bool comment = false;
		p->line++;
		p->ntok = 0;
		p->eol_col = 1;
		while (i < p->len && t[i] != '\n') {
			unsigned char c = (unsigned char)t[i];
			unsigned col = (unsigned)(i - start + 1);
			if (is_control(c))
				return fail(p, (struct pos){p->line, col},
					    "unexpected control byte 0x%02x, expected text", c);
			if (c == '#')
				comment = true;
			if (comment || c == ' ' || c == '\t' || c == '\r') {
				i++;
				continue;
			}
			size_t j = i + 1;
			if (c == '"') {
				/* A quoted word runs to the next quote on the line, spaces and '#'
				 * included (\" and \\ do not end it); an unclosed one runs to the
				 * end of the line. */
				while (j < p->len && t[j] != '"' && t[j] != '\n' && t[j] != '\r' &&
				       !is_control((unsigned char)t[j]))
					j += t[j] == '\\' && j + 1 < p->len &&
							     (t[j + 1] == '"' || t[j + 1] == '\\') ?
						     2 :
						     1;
				if (j < p->len && t[j] == '"')
					j++;
			} else if (c != '{' && c != '}') {
				while (j < p->len && !ends_word((unsigned char)t[j]))
					j++;
			}
			if (p->ntok < MAX_TOKENS)
				p->tok[p->ntok++] = (struct token){t + i, j - i, col};
			p->eol_col = (unsigned)(j - start + 1);
			i = j;
		}
		p->at = i < p->len ? i + 1 : i;
		if (p->ntok > 0)
			return 1;
	}
	return 0;
}

static int end_of_line(struct parser *p, size_t i)
{
	if (p->ntok <= i)
		return 0;
	const struct token *t = &p->tok[i];
	return fail(p, at_tok(p, t), "unexpected '%.*s', expected the end of the line", qlen(t),
		    t->s);
}

/* A decimal integer in [min, max]; 'what' names it in messages. */
static int parse_int(struct parser *p, const struct token *t, const char *what, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	bool big = false;
	if (t->len == 0)
		return fail(p, at_tok(p, t), "missing %s, expected an integer from %" PRIu64
			    " to %" PRIu64, what, min, max);
	for (size_t i = 0; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return fail(p, at_tok(p, t),
				    "bad %s '%.*s', expected an integer from %" PRIu64 " to %" PRIu64,
				    what, qlen(t), t->s, min, max);
		if (v > max)
			big = true; /* keep scanning: a later non-digit is the better message */
		else
			v = v * 10 + (uint64_t)(t->s[i] - '0');
	}
	if (big || v < min || v > max)
		return fail(p, at_tok(p, t),
			    "%s %.*s is out of range, expected an integer from %" PRIu64 " to %" PRIu64,
			    what, qlen(t), t->s, min, max);
	*out = v;
	return 0;
}

static int int_arg(struct parser *p, size_t i, const char *what, uint64_t min, uint64_t max,
		   uint64_t *out)
{
	if (i >= p->ntok)
		return fail(p, at_eol(p),
			    "missing %s, expected an integer from %" PRIu64 " to %" PRIu64, what, min,
			    max);
	return parse_int(p, &p->tok[i], what, min, max, out);
}

/* A time such as 500ms or 1.5s, exact in integer nanoseconds. */
static int time_arg(struct parser *p, size_t i, const char *what, uint64_t *out_ns)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	if (i >= p->ntok)
		return fail(p, at_eol(p), "missing %s, expected " TIME_EXPECTED, what);
	const struct token *t = &p->tok[i];
	const char *s = t->s, *end = t->s + t->len;
	uint64_t whole = 0, frac = 0, frac_scale = 1;
	bool big = false, inexact = false;
	const char *digits = s;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (whole > PL_SCRIPT_MAX_NS)
			big = true;
		else
			whole = whole * 10 + (uint64_t)(*s - '0');
	}
	bool ok = s > digits;
	if (ok && s < end && *s == '.') {
		const char *fdigits = ++s;
		for (; s < end && *s >= '0' && *s <= '9'; s++) {
			if (frac_scale < 1000000000) {
				frac = frac * 10 + (uint64_t)(*s - '0');
				frac_scale *= 10;
			} else if (*s != '0') {
				inexact = true; /* finer than 1 ns in any unit */
			}
		}
		ok = s > fdigits;
	}
	uint64_t unit_ns = 0;
	for (size_t u = 0; ok && u < sizeof units / sizeof units[0]; u++)
		if ((size_t)(end - s) == strlen(units[u].name) &&
		    memcmp(s, units[u].name, (size_t)(end - s)) == 0)
			unit_ns = units[u].ns;
	if (!ok || unit_ns == 0)
		return fail(p, at_tok(p, t), "bad %s '%.*s', expected " TIME_EXPECTED, what, qlen(t),
			    t->s);
	if (inexact || (frac * unit_ns) % frac_scale != 0)
		return fail(p, at_tok(p, t),
			    "%s '%.*s' is not a whole number of nanoseconds, expected fewer decimals",
			    what, qlen(t), t->s);
	if (big || whole > PL_SCRIPT_MAX_NS / unit_ns ||
	    whole * unit_ns + frac * unit_ns / frac_scale > PL_SCRIPT_MAX_NS)
		return fail(p, at_tok(p, t), "%s '%.*s' is too large, expected at most %" PRIu64 "s",
			    what, qlen(t), t->s, PL_SCRIPT_MAX_NS / 1000000000);
	*out_ns = whole * unit_ns + frac * unit_ns / frac_scale;
	return 0;
}

/* Moves the block's clock on by by_ns, refusing to pass PL_SCRIPT_MAX_NS. Block clocks start at
 * 0 and a block's actions are later placed at or after an outer clock, so checking the outer
 * clock after each block suffices. */
static int advance(struct parser *p, struct pos where, uint64_t *now_ns, uint64_t by_ns)
{
	if (by_ns > PL_SCRIPT_MAX_NS - *now_ns)
		return fail(p, where, "script time passes %" PRIu64 "s, expected a shorter script",
			    PL_SCRIPT_MAX_NS / 1000000000);
	*now_ns += by_ns;
	return 0;
}

static int push(struct parser *p, struct pos where, struct action_list *l,
		const struct pl_action *a)
{
	if (l->n >= PL_SCRIPT_MAX_ACTIONS)
		return fail(p, where, "script has more than %u actions, expected fewer",
			    PL_SCRIPT_MAX_ACTIONS);
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;

		l->v = pl_xrealloc(l->v, cap, sizeof(*l->v));
		l->cap = cap;
	}
	l->v[l->n++] = *a;
	return 0;
}

/* A statement's name=value options. Each kind parses its value into *out; given marks it seen. */
enum opt_kind { OPT_INT, OPT_TIME, OPT_AREA };

struct opt {
	const char *name;
	enum opt_kind kind;
	uint64_t min, max; /* OPT_INT */
	uint64_t *out;     /* OPT_INT, OPT_TIME: one value; OPT_AREA: x1, y1, x2, y2 */
	bool given;
};

/* X1,Y1,X2,Y2: a rectangle of screen pixels, corners included, X1 <= X2 and Y1 <= Y2. */
static int parse_area(struct parser *p, const struct token *t, uint64_t out[4])
{
	static const char *what[4] = {"area x1", "area y1", "area x2", "area y2"};
	struct token part = {t->s, 0, t->col};
	for (int k = 0; k < 4; k++) {
		const char *end = t->s + t->len, *comma = memchr(part.s, ',', (size_t)(end - part.s));
		if (k < 3 && !comma)
			return fail(p, at_tok(p, t), "bad area '%.*s', expected X1,Y1,X2,Y2",
				    qlen(t), t->s);
		part.len = (size_t)((k < 3 ? comma : end) - part.s);
		uint64_t max = (k % 2 ? PL_SCREEN_HEIGHT_PX : PL_SCREEN_WIDTH_PX) - 1;
		if (parse_int(p, &part, what[k], k < 2 ? 0 : out[k - 2], max, &out[k]) < 0)
			return -1;
		part.col += (unsigned)part.len + 1;
		part.s += part.len + 1;
	}
	return 0;
}

/* Options from word 'from' to the end of the line; 'expected' lists them for messages. */
static int parse_options(struct parser *p, size_t from, struct opt *opts, size_t nopts,
			 const char *expected)
{
	for (size_t i = from; i < p->ntok; i++) {
		const struct token *t = &p->tok[i];
		const char *eq = memchr(t->s, '=', t->len);
		if (!eq)
			return fail(p, at_tok(p, t), "unexpected '%.*s', expected %s or the end of "
				    "the line", qlen(t), t->s, expected);
		struct token name = {t->s, (size_t)(eq - t->s), t->col};
		struct token value = {eq + 1, t->len - name.len - 1, t->col + (unsigned)name.len + 1};
		struct opt *o = NULL;
		for (size_t k = 0; k < nopts && !o; k++)
			if (tok_is(&name, opts[k].name))
				o = &opts[k];
		if (!o)
			return fail(p, at_tok(p, t), "unknown option '%.*s', expected %s",
				    qlen(&name), name.s, expected);
		if (o->given)
			return fail(p, at_tok(p, t), "%s given twice, expected it once", o->name);
		int rc;
		if (o->kind == OPT_INT) {
			rc = parse_int(p, &value, o->name, o->min, o->max, o->out);
		} else if (o->kind == OPT_AREA) {
			rc = parse_area(p, &value, o->out);
		} else {
			/* time_arg reads a whole word: hand it the value as one. */
			struct token saved = p->tok[i];
			p->tok[i] = value;
			rc = time_arg(p, i, o->name, o->out);
			p->tok[i] = saved;
		}
		if (rc < 0)
			return -1;
		o->given = true;
	}
	return 0;
}

/* Appends an input at the clock and moves the clock on by 'occupies_ns' (>= its hold). */
static int emit(struct parser *p, struct pos where, struct action_list *out, uint64_t *now_ns,
		struct pl_action a, uint64_t occupies_ns)
{
	a.at_ns = *now_ns;
	a.line = p->line;
	if (push(p, where, out, &a) < 0)
		return -1;
	return advance(p, where, now_ns, occupies_ns);
}

/* tap X Y [param=N], or longpress X Y DURATION [param=N] (hold_arg: the duration's word, 0 if
 * none). */
static int stmt_touch(struct parser *p, struct action_list *out, uint64_t *now_ns, size_t hold_arg)
{
	struct pos where = at_tok(p, &p->tok[0]);
	uint64_t x, y, param = 0, hold_ns = PL_PRESS_HOLD_NS;
	struct opt opts[] = {{"param", OPT_INT, 0, INT32_MAX, &param, false}};
	if (int_arg(p, 1, "x coordinate", 0, PL_SCREEN_WIDTH_PX - 1, &x) < 0 ||
	    int_arg(p, 2, "y coordinate", 0, PL_SCREEN_HEIGHT_PX - 1, &y) < 0 ||
	    (hold_arg && time_arg(p, hold_arg, "press duration", &hold_ns) < 0) ||
	    parse_options(p, hold_arg ? hold_arg + 1 : 3, opts, 1, "param=N") < 0)
		return -1;
	if (hold_ns == 0)
		return fail(p, at_tok(p, &p->tok[hold_arg]),
			    "press duration 0 is too short, expected at least 1ns");
	struct pl_action a = {
		.kind = PL_ACTION_TAP,
		.hold_ns = hold_ns,
		.x_px = (int32_t)x,
		.y_px = (int32_t)y,
		.param = (int32_t)param,
	};
	return emit(p, where, out, now_ns, a, hold_ns);
}

/* swipe X1 Y1 X2 Y2 DURATION [steps=N] [param=N] */
static int stmt_swipe(struct parser *p, struct action_list *out, uint64_t *now_ns)
{
	struct pos where = at_tok(p, &p->tok[0]);
	uint64_t x, y, x2, y2, hold_ns, steps = 0, param = 0;
	struct opt opts[] = {
		{"steps", OPT_INT, 1, PL_SWIPE_MAX_STEPS, &steps, false},
		{"param", OPT_INT, 0, INT32_MAX, &param, false},
	};
	if (int_arg(p, 1, "x coordinate", 0, PL_SCREEN_WIDTH_PX - 1, &x) < 0 ||
	    int_arg(p, 2, "y coordinate", 0, PL_SCREEN_HEIGHT_PX - 1, &y) < 0 ||
	    int_arg(p, 3, "end x coordinate", 0, PL_SCREEN_WIDTH_PX - 1, &x2) < 0 ||
	    int_arg(p, 4, "end y coordinate", 0, PL_SCREEN_HEIGHT_PX - 1, &y2) < 0 ||
	    time_arg(p, 5, "swipe duration", &hold_ns) < 0 ||
	    parse_options(p, 6, opts, 2, "steps=N or param=N") < 0)
		return -1;
	if (hold_ns == 0)
		return fail(p, at_tok(p, &p->tok[5]),
			    "swipe duration 0 is too short, expected at least 1ns");
	if (!opts[0].given) {
		steps = hold_ns / PL_SWIPE_STEP_NS;
		steps = steps < 1 ? 1 : steps > PL_SWIPE_MAX_STEPS ? PL_SWIPE_MAX_STEPS : steps;
	}
	struct pl_action a = {
		.kind = PL_ACTION_SWIPE,
		.hold_ns = hold_ns,
		.x_px = (int32_t)x,
		.y_px = (int32_t)y,
		.x2_px = (int32_t)x2,
		.y2_px = (int32_t)y2,
		.steps = (uint32_t)steps,
		.param = (int32_t)param,
	};
	return emit(p, where, out, now_ns, a, hold_ns);
}

#define TEXT_CHARS "printable ASCII (space to '~'; write \\\" for a quote, \\\\ for a backslash)"
#define DEFAULT_TEXT_INTERVAL_NS 150000000ull
#define DEFAULT_MONKEY_INTERVAL_NS 500000000ull

/* The key and modifiers that type c on a US keyboard (the layout of the guest kernel's default
 * keymap, drivers/tty/vt/defkeymap.map), or -1. */
static int key_for_char(char c, uint8_t *mods)
{
	/* Each row: the unshifted character, the shifted one, the key. */
	static const struct {
		char plain, shifted;
		const char *key;
	} keys[] = {
		{ '1', '!', "KEY_1" },	     { '2', '@', "KEY_2" },	 { '3', '#', "KEY_3" },
		{ '4', '$', "KEY_4" },	     { '5', '%', "KEY_5" },	 { '6', '^', "KEY_6" },
		{ '7', '&', "KEY_7" },	     { '8', '*', "KEY_8" },	 { '9', '(', "KEY_9" },
		{ '0', ')', "KEY_0" },	     { '-', '_', "MINUS" },	 { '=', '+', "EQUAL" },
		{ '[', '{', "LEFTBRACE" },   { ']', '}', "RIGHTBRACE" }, { ';', ':', "SEMICOLON" },
		{ '\'', '"', "APOSTROPHE" }, { '`', '~', "GRAVE" },	 { '\\', '|', "BACKSLASH" },
		{ ',', '<', "COMMA" },	     { '.', '>', "DOT" },	 { '/', '?', "SLASH" },
		{ ' ', ' ', "SPACE" },
	};
	*mods = 0;
	if (c >= 'a' && c <= 'z')
		return pl_key_code((char[]){(char)(c - 'a' + 'A')}, 1);
	if (c >= 'A' && c <= 'Z') {
		*mods = PL_MOD_SHIFT;
		return pl_key_code(&c, 1);
	}
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (keys[i].plain == c || keys[i].shifted == c) {
			*mods = keys[i].plain == c ? 0 : PL_MOD_SHIFT;
			return pl_key_code(keys[i].key, strlen(keys[i].key));
		}
	return -1;
}

/* An interval option's value: the time from one input to the next, at least one hold. */
static int check_interval(struct parser *p, uint64_t interval_ns)
{
	if (interval_ns >= PL_PRESS_HOLD_NS)
		return 0;
	char d[32];
	pl_format_duration(d, sizeof d, interval_ns);
	return fail(p, at_eol(p), "interval %s is shorter than a press, expected at least 50ms", d);
}

/* text "STRING" [interval=D]: one key press per character, D apart (default 150ms). */
static int stmt_text(struct parser *p, struct action_list *out, uint64_t *now_ns)
{
	struct pos where = at_tok(p, &p->tok[0]);
	uint64_t interval_ns = DEFAULT_TEXT_INTERVAL_NS;
	struct opt opts[] = {{"interval", OPT_TIME, 0, 0, &interval_ns, false}};
	if (p->ntok < 2)
		return fail(p, at_eol(p), "missing text, expected a quoted string such as \"hello\"");
	const struct token *t = &p->tok[1];
	size_t backslashes = 0; /* before the closing quote: an odd count escapes it */
	while (backslashes + 2 < t->len && t->s[t->len - 2 - backslashes] == '\\')
		backslashes++;
	if (t->len < 2 || t->s[0] != '"' || t->s[t->len - 1] != '"' || backslashes % 2)
		return fail(p, at_tok(p, t), "bad text '%.*s', expected a quoted string such as "
			    "\"hello\"", qlen(t), t->s);
	if (parse_options(p, 2, opts, 1, "interval=D") < 0 ||
	    check_interval(p, interval_ns) < 0)
		return -1;
	for (size_t i = 1; i + 1 < t->len; i++) {
		uint8_t mods;
		/* The tokenizer kept \" inside the word; \\ is a backslash. */
		if (t->s[i] == '\\' && i + 2 < t->len &&
		    (t->s[i + 1] == '"' || t->s[i + 1] == '\\'))
			i++;
		int code = key_for_char(t->s[i], &mods);
		if (code < 0)
			return fail(p, (struct pos){ p->line, t->col + (unsigned)i },
				    "cannot type byte 0x%02x, expected " TEXT_CHARS,
				    (unsigned char)t->s[i]);
		struct pl_action a = { .kind = PL_ACTION_KEY,
				       .hold_ns = PL_PRESS_HOLD_NS,
				       .key_code = (uint16_t)code,
				       .mods = mods };
		if (emit(p, where, out, now_ns, a, interval_ns) < 0)
			return -1;
	}
	return 0;
}

/* splitmix64 (Steele, Lea, Flood 2014): a seed gives the same sequence on every host. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* monkey SEED COUNT [interval=D] [area=X1,Y1,X2,Y2] [param=N] [keys=P]: COUNT pseudo-random
 * inputs D apart (default 500ms): with probability P% (default 0) a key press among monkey_keys,
 * otherwise a tap at a uniform pixel of the area (default the whole screen) with param N. */
static int stmt_monkey(struct parser *p, struct action_list *out, uint64_t *now_ns)
{
	static const char *monkey_keys[] = {"BACK", "MENU", "ENTER", "SPACE"};
	struct pos where = at_tok(p, &p->tok[0]);
	uint64_t seed, count, interval_ns = DEFAULT_MONKEY_INTERVAL_NS, param = 0, keys_pct = 0;
	uint64_t area[4] = {0, 0, PL_SCREEN_WIDTH_PX - 1, PL_SCREEN_HEIGHT_PX - 1};
	struct opt opts[] = {
		{"interval", OPT_TIME, 0, 0, &interval_ns, false},
		{"area", OPT_AREA, 0, 0, area, false},
		{"param", OPT_INT, 0, INT32_MAX, &param, false},
		{"keys", OPT_INT, 0, 100, &keys_pct, false},
	};
	if (int_arg(p, 1, "seed", 0, UINT32_MAX, &seed) < 0 ||
	    int_arg(p, 2, "count", 1, PL_SCRIPT_MAX_ACTIONS, &count) < 0 ||
	    parse_options(p, 3, opts, sizeof opts / sizeof opts[0],
			  "interval=D, area=X1,Y1,X2,Y2, param=N or keys=P") < 0 ||
	    check_interval(p, interval_ns) < 0)
		return -1;
	uint64_t state = seed;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t r = next_random(&state);
		struct pl_action a = {.hold_ns = PL_PRESS_HOLD_NS};
		if (r % 100 < keys_pct) {
			size_t nkeys = sizeof monkey_keys / sizeof monkey_keys[0];
			const char *k = monkey_keys[(r / 100) % nkeys];
			a.kind = PL_ACTION_KEY;
			a.key_code = (uint16_t)pl_key_code(k, strlen(k));
		} else {
			uint64_t xy = next_random(&state);
			a.kind = PL_ACTION_TAP;
			a.x_px = (int32_t)(area[0] + (xy & 0xffffffffu) % (area[2] - area[0] + 1));
			a.y_px = (int32_t)(area[1] + (xy >> 32) % (area[3] - area[1] + 1));
			a.param = (int32_t)param;
		}
		if (emit(p, where, out, now_ns, a, interval_ns) < 0)
			return -1;
	}
	return 0;
}

/* key [MOD+]...NAME | key [MOD+]...CODE, MOD one of CTRL, SHIFT, ALT */
static int stmt_key(struct parser *p, struct action_list *out, uint64_t *now_ns)
{
	struct pos where = at_tok(p, &p->tok[0]);
	if (p->ntok < 2)
		return fail(p, at_eol(p), "missing key, expected a key name such as BACK or a code");
	struct token t = p->tok[1];
	uint8_t mods = 0;
	for (const char *plus; (plus = memchr(t.s, '+', t.len)) != NULL;) {
		size_t len = (size_t)(plus - t.s), i = 0;
		while (i < PL_MOD_COUNT && !(strlen(pl_mod_name(i)) == len &&
					     strncasecmp(pl_mod_name(i), t.s, len) == 0))
			i++;
		if (i == PL_MOD_COUNT || (mods & pl_mod_bit(i)))
			return fail(p, at_tok(p, &t),
				    "%s modifier '%.*s', expected CTRL, SHIFT or "
				    "ALT, each once, joined to the key by '+' (e.g. CTRL+C)",
				    i == PL_MOD_COUNT ? "unknown" : "repeated", (int)len, t.s);
		mods |= pl_mod_bit(i);
		t = (struct token){ plus + 1, t.len - len - 1, t.col + (unsigned)len + 1 };
	}
	int code;
	if (t.len > 0 && t.s[0] >= '0' && t.s[0] <= '9') {
		uint64_t v;
		if (parse_int(p, &t, "key code", 0, UINT16_MAX, &v) < 0)
			return -1;
		code = pl_key_name((uint16_t)v) ? (int)v : -1;
		if (code < 0)
			return fail(
				p, at_tok(p, &t),
				"unknown key code %.*s, expected a code listed in replay/README.md",
				qlen(&t), t.s);
	} else {
		code = pl_key_code(t.s, t.len);
		if (code < 0)
			return fail(p, at_tok(p, &t),
				    "unknown key '%.*s', expected a key name listed in "
				    "replay/README.md (e.g. BACK, HOME, ENTER, A)",
				    qlen(&t), t.s);
	}
	if (end_of_line(p, 2) < 0)
		return -1;
	struct pl_action a = {
		.kind = PL_ACTION_KEY,
		.hold_ns = PL_PRESS_HOLD_NS,
		.key_code = (uint16_t)code,
		.mods = mods,
	};
	return emit(p, where, out, now_ns, a, a.hold_ns);
}

/* A control action at the clock; it takes no script time (the player stops the clock there). */
static int emit_control(struct parser *p, struct action_list *out, uint64_t now_ns,
			struct pl_action a)
{
	a.at_ns = now_ns;
	a.line = p->line;
	return push(p, at_tok(p, &p->tok[0]), out, &a);
}

/* wait DURATION | wait idle [timeout=D] | wait display [timeout=D] */
static int stmt_wait(struct parser *p, struct action_list *out, uint64_t *now_ns)
{
	bool idle = p->ntok > 1 && tok_is(&p->tok[1], "idle");
	if (idle || (p->ntok > 1 && tok_is(&p->tok[1], "display"))) {
		struct pl_action a = {.kind = idle ? PL_ACTION_WAIT_IDLE : PL_ACTION_WAIT_DISPLAY,
				      .timeout_ns = PL_WAIT_TIMEOUT_NS};
		struct opt opts[] = {{"timeout", OPT_TIME, 0, 0, &a.timeout_ns, false}};
		if (parse_options(p, 2, opts, 1, "timeout=D") < 0)
			return -1;
		if (a.timeout_ns == 0)
			return fail(p, at_tok(p, &p->tok[2]),
				    "timeout 0 is too short, expected at least 1ns");
		return emit_control(p, out, *now_ns, a);
	}
	uint64_t d_ns;
	/* A word, not a malformed number: the writer meant a condition. */
	if (p->ntok > 1 && ((p->tok[1].s[0] | 0x20) >= 'a' && (p->tok[1].s[0] | 0x20) <= 'z'))
		return fail(p, at_tok(p, &p->tok[1]),
			    "bad wait '%.*s', expected a duration (e.g. 500ms), idle or display",
			    qlen(&p->tok[1]), p->tok[1].s);
	if (time_arg(p, 1, "duration", &d_ns) < 0 || end_of_line(p, 2) < 0)
		return -1;
	return advance(p, at_tok(p, &p->tok[0]), now_ns, d_ns);
}

/* launch APP | switch APP */
static int stmt_app(struct parser *p, struct action_list *out, uint64_t now_ns, bool launch)
{
	if (p->ntok < 2)
		return fail(p, at_eol(p), "missing app name, expected a name such as asynctask");
	const struct token *t = &p->tok[1];
	bool ok = t->len <= PL_APP_NAME_MAX && t->s[0] >= 'a' && t->s[0] <= 'z';
	for (size_t i = 1; ok && i < t->len; i++)
		ok = (t->s[i] >= 'a' && t->s[i] <= 'z') || (t->s[i] >= '0' && t->s[i] <= '9') ||
		     t->s[i] == '_' || t->s[i] == '-';
	if (!ok)
		return fail(p, at_tok(p, t),
			    "bad app name '%.*s', expected up to %d lower-case letters, digits, '_' "
			    "or '-', starting with a letter",
			    qlen(t), t->s, PL_APP_NAME_MAX);
	if (end_of_line(p, 2) < 0)
		return -1;
	struct pl_action a = {.kind = launch ? PL_ACTION_LAUNCH : PL_ACTION_SWITCH};
	memcpy(a.app, t->s, t->len);
	return emit_control(p, out, now_ns, a);
}

/* at TIME: only at the top level, where the block clock is the time since ready. */
static int stmt_at(struct parser *p, int depth, uint64_t *now_ns)
{
	uint64_t t_ns;
	if (depth > 0)
		return fail(p, at_tok(p, &p->tok[0]),
			    "'at' inside a repeat block, expected wait (an absolute time cannot "
			    "repeat)");
	if (time_arg(p, 1, "time", &t_ns) < 0 || end_of_line(p, 2) < 0)
		return -1;
	if (t_ns < *now_ns) {
		char t[32], now[32];
		pl_format_duration(t, sizeof t, t_ns);
		pl_format_duration(now, sizeof now, *now_ns);
		return fail(p, at_tok(p, &p->tok[1]),
			    "time %s is before the script's current time %s, expected a time at or "
			    "after it",
			    t, now);
	}
	*now_ns = t_ns;
	return 0;
}

static int parse_block(struct parser *p, const struct pos *opener, int depth,
		       struct action_list *out, uint64_t *end_ns);

/* repeat N { ... } */
static int stmt_repeat(struct parser *p, int depth, struct action_list *out, uint64_t *now_ns)
{
	struct pos where = at_tok(p, &p->tok[0]);
	uint64_t count, body_ns;
	if (int_arg(p, 1, "repeat count", 1, PL_SCRIPT_MAX_ACTIONS, &count) < 0)
		return -1;
	if (p->ntok < 3)
		return fail(p, at_eol(p), "missing '{', expected 'repeat N {'");
	if (!tok_is(&p->tok[2], "{"))
		return fail(p, at_tok(p, &p->tok[2]), "unexpected '%.*s', expected '{'",
			    qlen(&p->tok[2]), p->tok[2].s);
	if (end_of_line(p, 3) < 0)
		return -1;
	if (depth + 1 > PL_SCRIPT_MAX_DEPTH)
		return fail(p, where, "repeat blocks nested more than %d deep, expected fewer levels",
			    PL_SCRIPT_MAX_DEPTH);

	struct action_list body = {0};
	int rc = parse_block(p, &where, depth + 1, &body, &body_ns);
	if (rc == 0 && (uint64_t)body.n * count > PL_SCRIPT_MAX_ACTIONS - out->n)
		rc = fail(p, where, "repeat makes more than %u actions, expected a smaller count",
			  PL_SCRIPT_MAX_ACTIONS);
	if (rc == 0 && body_ns > 0 && count > (PL_SCRIPT_MAX_NS - *now_ns) / body_ns)
		rc = fail(p, where, "script time passes %" PRIu64 "s, expected a smaller count",
			  PL_SCRIPT_MAX_NS / 1000000000);
	for (uint64_t i = 0; rc == 0 && i < count; i++) {
		for (size_t k = 0; rc == 0 && k < body.n; k++) {
			struct pl_action a = body.v[k];
			a.at_ns += *now_ns + i * body_ns;
			rc = push(p, where, out, &a);
		}
	}
	free(body.v);
	if (rc == 0)
		*now_ns += count * body_ns;
	return rc;
}

/* Statements up to the '}' that closes the repeat at 'opener', or to the end of the text when
 * opener is NULL. Actions are timed from the block's start; *end_ns is the block's length. */
static int parse_block(struct parser *p, const struct pos *opener, int depth,
		       struct action_list *out, uint64_t *end_ns)
{
	uint64_t now_ns = 0;
	for (;;) {
		int rc = next_line(p);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			if (opener)
				return fail(p, *opener, "repeat block is not closed, expected '}' "
					    "before the end of the file");
			break;
		}
		const struct token *cmd = &p->tok[0];
		if (tok_is(cmd, "}")) {
			if (!opener)
				return fail(p, at_tok(p, cmd),
					    "unexpected '}', expected a command (no repeat block is "
					    "open)");
			if (end_of_line(p, 1) < 0)
				return -1;
			break;
		}
		if (tok_is(cmd, "tap"))
			rc = stmt_touch(p, out, &now_ns, 0);
		else if (tok_is(cmd, "longpress"))
			rc = stmt_touch(p, out, &now_ns, 3);
		else if (tok_is(cmd, "swipe"))
			rc = stmt_swipe(p, out, &now_ns);
		else if (tok_is(cmd, "text"))
			rc = stmt_text(p, out, &now_ns);
		else if (tok_is(cmd, "monkey"))
			rc = stmt_monkey(p, out, &now_ns);
		else if (tok_is(cmd, "key"))
			rc = stmt_key(p, out, &now_ns);
		else if (tok_is(cmd, "wait"))
			rc = stmt_wait(p, out, &now_ns);
		else if (tok_is(cmd, "launch") || tok_is(cmd, "switch"))
			rc = stmt_app(p, out, now_ns, tok_is(cmd, "launch"));
		else if (tok_is(cmd, "at"))
			rc = stmt_at(p, depth, &now_ns);
		else if (tok_is(cmd, "repeat"))
			rc = stmt_repeat(p, depth, out, &now_ns);
		else
			rc = fail(p, at_tok(p, cmd),
				  "unknown command '%.*s', expected tap, longpress, swipe, key, text, "
				  "monkey, wait, at, repeat, launch or switch",
				  qlen(cmd), cmd->s);
		if (rc < 0)
			return -1;
	}
	*end_ns = now_ns;
	return 0;
}

int pl_script_parse_buffer(const char *name, const char *text, size_t len, struct pl_script **out,
			   struct pl_error *err)
{
	struct parser p = {.name = name, .text = text, .len = len, .err = err};
	struct action_list l = {0};
	/* Editors on some systems start UTF-8 text with a byte order mark: skip it, so columns
	 * count from the first character the editor shows. */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		p.at = 3;
	uint64_t end_ns;
	*out = NULL;
	if (parse_block(&p, NULL, 0, &l, &end_ns) < 0) {
		free(l.v);
		return -1;
	}
	struct pl_script *s = pl_xcalloc(1, sizeof(*s));

	*s = (struct pl_script){l.v, l.n, end_ns};
	*out = s;
	return 0;
}

int pl_script_parse_file(const char *path, struct pl_script **out, struct pl_error *err)
{
	char *text;
	size_t len;

	*out = NULL;
	if (pl_read_file(path, PL_CAP_SCRIPT_BYTES, "a replay script", &text, &len, err) < 0)
		return -1;
	int rc = pl_script_parse_buffer(path, text, len, out, err);
	free(text);
	return rc;
}

void pl_script_free(struct pl_script *script)
{
	if (!script)
		return;
	free(script->actions);
	free(script);
}

size_t pl_script_action_count(const struct pl_script *script)
{
	return script->count;
}

const struct pl_action *pl_script_action(const struct pl_script *script, size_t index)
{
	return index < script->count ? &script->actions[index] : NULL;
}

uint64_t pl_script_duration_ns(const struct pl_script *script)
{
	return script->duration_ns;
}

int pl_format_duration(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {{"s", 1000000000}, {"ms", 1000000}, {"us", 1000}};
	for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
		if (ns % units[u].ns == 0)
			return snprintf(buf, len, "%" PRIu64 "%s", ns / units[u].ns, units[u].name);
	return snprintf(buf, len, "%" PRIu64 "ns", ns);
}
