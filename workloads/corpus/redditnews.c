/*
 * panlab-corpus-redditnews OUTDIR: writes app-redditnews's content, the same bytes from the same
 * seed on every host (redditnews.sha256 lists them; `make -C workloads corpus-check` compares).
 * panlab-corpus-redditnews --model-constants: the distributions below, in the analyzer's
 * model-constants format (section 6's findings cite them):
 *
 *   r/front/P.json       PAGES front pages of STORIES stories each, Reddit's listing shape
 *                        (a "Listing" whose children are "t3" links), compact JSON by jansson;
 *   img/ID.jpg           one picture per story: a gradient between four random corner colours
 *                        plus per-pixel noise, baseline JPEG by libjpeg-turbo at JPEG_QUALITY;
 *   comments/ID.json     the story's thread: the link, then its comments (author, score,
 *                        nesting depth, body) in reading order.
 *
 * Distributions (all drawn from one splitmix64 stream seeded with CORPUS_SEED, integer
 * arithmetic only, in a fixed order):
 *   - picture pixel count log-uniform in [IMG_MIN_PX, IMG_MAX_PX], aspect 4:3 or 3:4 with equal
 *     odds; the noise makes bytes per pixel nearly constant, so file sizes come out log-uniform
 *     over the paper's 15 KB to 3 MB (Panappticon 6.2), which the generator checks;
 *   - comments per story log-uniform in [1, COMMENTS_MAX]; a comment has 1-4 sentences of 4-18
 *     words from a fixed vocabulary; depth 0 for a top-level comment, else up to one deeper
 *     than the comment before it.
 * Reddit's default listing holds 25 links (its API's `limit` default), hence STORIES.
 */
#include <errno.h>
#include <jansson.h>
#include <jpeglib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "panlab/error.h"

#define CORPUS_SEED 0x2013c0de5eedull
#define PAGES 32		/* each refreshed once by the section 6 mix; two letters name a page */
#define STORIES 25
_Static_assert(PAGES <= 26 * 26, "a page's id prefix is two letters");
#define JPEG_QUALITY 85
#define IMG_MIN_PX 31000u	/* about 16 KB at JPEG_QUALITY with the noise below */
#define IMG_MAX_PX 6200000u	/* about 2.9 MB */
#define IMG_MIN_BYTES (15u * 1000u)
#define IMG_MAX_BYTES (3u * 1000u * 1000u)
#define NOISE 96		/* peak-to-peak per channel, of 256: about 0.5 byte per pixel */
#define COMMENTS_MAX 240

static const char prog[] = "panlab-corpus-redditnews";

static uint64_t rng_state = CORPUS_SEED;

/* splitmix64 (Steele, Lea, Flood, OOPSLA 2014). */
static uint64_t next_u64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static uint32_t uniform(uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(next_u64() % ((uint64_t)hi - lo + 1));
}

/* Log-uniform in [lo, hi], lo >= 1: a uniform exponent in 1/1024 steps of log2, applied by
 * integer multiplication in 16.16 fixed point, so no floating point (and no libm) decides a
 * byte. */
static uint32_t log_uniform(uint32_t lo, uint32_t hi)
{
	/* 2^(1/1024) - 1 in 0.32 fixed point. */
	const uint64_t step = 2908254ull;
	const uint64_t top = (uint64_t)hi << 16;
	uint64_t v = (uint64_t)lo << 16;
	uint32_t steps = 0;

	while (v < top) {
		v += v * step >> 32;
		steps++;
	}
	uint32_t k = uniform(0, steps);
	v = (uint64_t)lo << 16;
	for (uint32_t i = 0; i < k; i++)
		v += v * step >> 32;
	return v >= top ? hi : (uint32_t)(v >> 16);
}

static const char *const words[] = {
	"the", "a", "of", "to", "and", "in", "is", "it", "that", "for", "on", "was", "with", "this",
	"as", "but", "be", "at", "by", "not", "are", "from", "or", "have", "an", "they", "which",
	"you", "one", "were", "all", "we", "when", "there", "can", "more", "if", "no", "out", "so",
	"what", "up", "its", "about", "into", "than", "them", "only", "other", "new", "some", "time",
	"could", "these", "two", "may", "first", "then", "do", "any", "like", "my", "now", "over",
	"such", "our", "man", "me", "even", "most", "made", "after", "also", "did", "many", "before",
	"must", "through", "back", "years", "where", "much", "your", "way", "well", "down", "should",
	"because", "each", "just", "those", "people", "how", "too", "little", "state", "good",
	"very", "make", "world", "still", "own", "see", "men", "work", "long", "get", "here",
	"between", "both", "life", "being", "under", "never", "day", "same", "another", "know",
	"while", "last", "might", "us", "great", "old", "year", "off", "come", "since", "against",
	"go", "came", "right", "used", "take", "three", "phone", "battery", "screen", "kernel",
	"android", "update", "camera", "photo", "city", "river", "cat", "dog", "game", "music",
	"science", "space", "rocket", "moon", "coffee", "bread", "winter", "summer", "train",
	"bridge", "garden", "window", "mountain", "ocean", "library", "museum", "painting",
	"question", "answer", "story", "history", "reason", "problem", "idea", "friend", "teacher",
	"student", "doctor", "engineer", "market", "price", "weather", "energy", "network",
	"thread", "comment", "upvote", "source", "link", "image", "video", "post", "edit",
	"interesting", "amazing", "terrible", "beautiful", "strange", "simple", "honest", "quick",
	"slow", "bright", "dark", "quiet", "loud", "actually", "probably", "really", "never",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

/* n words, the first capitalised, ending in '.', appended to buf (cap bytes, NUL kept). */
static void sentence(char *buf, size_t cap, uint32_t n)
{
	size_t len = strlen(buf);
	for (uint32_t i = 0; i < n && len + 20 < cap; i++) {
		const char *w = words[next_u64() % NWORDS];
		int k = snprintf(buf + len, cap - len, "%s%s", len ? " " : "", w);
		if (i == 0)
			buf[len + (len ? 1 : 0)] = (char)(buf[len + (len ? 1 : 0)] - 'a' + 'A');
		len += (size_t)k;
	}
	snprintf(buf + len, cap - len, ".");
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		struct pl_error err;
		pl_error_file(&err, path, "cannot create: %s", strerror(errno));
		pl_error_exit(prog, &err, PL_EXIT_FAILED);
	}
}

static void write_json(const char *path, json_t *j)
{
	struct pl_error err;
	/* Compact, keys in the order they were set (jansson keeps it). */
	if (json_dump_file(j, path, JSON_COMPACT) != 0) {
		pl_error_file(&err, path, "cannot write the JSON");
		pl_error_exit(prog, &err, PL_EXIT_FAILED);
	}
	json_decref(j);
}

/* One picture of w x h pixels; returns its size in bytes. */
static long write_jpeg(const char *path, uint32_t w, uint32_t h)
{
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr jerr;
	struct pl_error err;
	uint8_t corner[4][3];
	uint8_t *row = pl_xcalloc((size_t)w, 3);
	FILE *f = fopen(path, "wb");

	if (!f) {
		pl_error_file(&err, path, "cannot create: %s", strerror(errno));
		pl_error_exit(prog, &err, PL_EXIT_FAILED);
	}
	for (int k = 0; k < 4; k++)
		for (int ch = 0; ch < 3; ch++)
			corner[k][ch] = (uint8_t)uniform(0, 255);
	c.err = jpeg_std_error(&jerr);
	jpeg_create_compress(&c);
	jpeg_stdio_dest(&c, f);
	c.image_width = w;
	c.image_height = h;
	c.input_components = 3;
	c.in_color_space = JCS_RGB;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, JPEG_QUALITY, TRUE);
	/* The integer DCT, the library's default, named so no host picks another. */
	c.dct_method = JDCT_ISLOW;
	jpeg_start_compress(&c, TRUE);
	for (uint32_t y = 0; y < h; y++) {
		for (uint32_t x = 0; x < w; x++)
			for (int ch = 0; ch < 3; ch++) {
				/* Bilinear between the corners, in 1/65536 steps. */
				uint64_t fx = (uint64_t)x * 65536 / w, fy = (uint64_t)y * 65536 / h;
				uint64_t top = corner[0][ch] * (65536 - fx) + corner[1][ch] * fx;
				uint64_t bot = corner[2][ch] * (65536 - fx) + corner[3][ch] * fx;
				int v = (int)((top * (65536 - fy) + bot * fy) >> 32);
				v += (int)(next_u64() % NOISE) - NOISE / 2;
				row[(size_t)x * 3 + (size_t)ch] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
			}
		JSAMPROW r = row;
		jpeg_write_scanlines(&c, &r, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	long size = ftell(f);
	if (fclose(f) != 0 || size < 0) {
		pl_error_file(&err, path, "cannot write: %s", strerror(errno));
		pl_error_exit(prog, &err, PL_EXIT_FAILED);
	}
	free(row);
	return size;
}

static json_t *link_data(const char *id, uint32_t page, uint32_t k, const char *title,
			 uint32_t ncomments, uint32_t w, uint32_t h)
{
	char buf[160], author[32];
	json_t *d = json_object();

	snprintf(author, sizeof(author), "user%u", uniform(1, 99999));
	json_object_set_new(d, "id", json_string(id));
	snprintf(buf, sizeof(buf), "t3_%s", id);
	json_object_set_new(d, "name", json_string(buf));
	json_object_set_new(d, "title", json_string(title));
	json_object_set_new(d, "author", json_string(author));
	json_object_set_new(d, "subreddit", json_string(words[(page * STORIES + k) % NWORDS]));
	json_object_set_new(d, "score", json_integer(log_uniform(1, 30000)));
	json_object_set_new(d, "num_comments", json_integer(ncomments));
	json_object_set_new(d, "created_utc", json_integer(1370000000 + page * 3600 + k * 60));
	snprintf(buf, sizeof(buf), "/img/%s.jpg", id);
	json_object_set_new(d, "url", json_string(buf));
	json_object_set_new(d, "preview_width", json_integer(w));
	json_object_set_new(d, "preview_height", json_integer(h));
	snprintf(buf, sizeof(buf), "/comments/%s.json", id);
	json_object_set_new(d, "permalink", json_string(buf));
	return d;
}

/* The corpus's distributions, group "content corpus" (analyzer/include/panlab/findings.h). */
static void print_model_constants(void)
{
	static const char src[] = "workloads/corpus/redditnews.c";

	printf("# group\tname\tvalue\tsource\n");
	printf("content corpus\tseed\t0x%llx\t%s\n", (unsigned long long)CORPUS_SEED, src);
	printf("content corpus\tfront pages\t%d of %d stories\tReddit's listing limit default "
	       "(%s)\n", PAGES, STORIES, src);
	printf("content corpus\tpicture size\tlog-uniform %u..%u pixels, JPEG quality %d, %u KB.."
	       "%u MB\tPanappticon 6.2's 15 KB-3 MB (%s)\n", IMG_MIN_PX, IMG_MAX_PX, JPEG_QUALITY,
	       IMG_MIN_BYTES / 1000, IMG_MAX_BYTES / 1000000, src);
	printf("content corpus\tcomments per story\tlog-uniform 1..%d, 1-4 sentences of 4-18 "
	       "words\tnone (%s)\n", COMMENTS_MAX, src);
}

int main(int argc, char **argv)
{
	char path[4096], id[16];
	long img_min = -1, img_max = 0, total = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR | --model-constants\n", prog);
		return PL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--model-constants")) {
		print_model_constants();
		return pl_finish_stdout(prog, 0);
	}
	const char *out = argv[1];
	make_dir(out);
	snprintf(path, sizeof(path), "%s/r", out);
	make_dir(path);
	snprintf(path, sizeof(path), "%s/r/front", out);
	make_dir(path);
	snprintf(path, sizeof(path), "%s/img", out);
	make_dir(path);
	snprintf(path, sizeof(path), "%s/comments", out);
	make_dir(path);

	for (uint32_t page = 0; page < PAGES; page++) {
		json_t *children = json_array();
		for (uint32_t k = 0; k < STORIES; k++) {
			char title[256] = "";
			uint32_t px = log_uniform(IMG_MIN_PX, IMG_MAX_PX);
			uint32_t side = (uint32_t)(next_u64() & 1);
			/* w*h = px with w:h = 4:3 (or 3:4): the short side is sqrt(px*3/4). */
			uint32_t s = 1;
			while ((uint64_t)(s + 1) * (s + 1) * 4 <= (uint64_t)px * 3)
				s++;
			uint32_t w = side ? s : s * 4 / 3, h = side ? s * 4 / 3 : s;
			uint32_t ncomments = log_uniform(1, COMMENTS_MAX);

			/* Two letters name the page (Reddit's ids are base 36, lower case). */
			snprintf(id, sizeof(id), "%c%c%05x", 'a' + page / 26, 'a' + page % 26,
				 (unsigned)(next_u64() & 0xfffff));
			sentence(title, sizeof(title), uniform(5, 16));
			json_t *link = link_data(id, page, k, title, ncomments, w, h);

			snprintf(path, sizeof(path), "%s/img/%s.jpg", out, id);
			long bytes = write_jpeg(path, w, h);
			if (bytes < IMG_MIN_BYTES || bytes > IMG_MAX_BYTES) {
				struct pl_error err;
				pl_error_file(&err, path, "%ld bytes, expected %u to %u: the noise or "
					      "IMG_*_PX no longer match JPEG_QUALITY", bytes,
					      IMG_MIN_BYTES, IMG_MAX_BYTES);
				pl_error_exit(prog, &err, PL_EXIT_FAILED);
			}
			img_min = img_min < 0 || bytes < img_min ? bytes : img_min;
			img_max = bytes > img_max ? bytes : img_max;
			total += bytes;

			json_t *comments = json_array();
			uint32_t depth = 0;
			for (uint32_t i = 0; i < ncomments; i++) {
				char body[2048] = "", author[32];
				uint32_t nsent = uniform(1, 4);
				for (uint32_t j = 0; j < nsent; j++)
					sentence(body, sizeof(body), uniform(4, 18));
				depth = i == 0 ? 0 : uniform(0, depth + 1);
				snprintf(author, sizeof(author), "user%u", uniform(1, 99999));
				json_t *c = json_object();
				json_object_set_new(c, "author", json_string(author));
				json_object_set_new(c, "score", json_integer((json_int_t)uniform(0, 500) - 20));
				json_object_set_new(c, "depth", json_integer(depth));
				json_object_set_new(c, "body", json_string(body));
				json_array_append_new(comments, c);
			}
			json_t *thread = json_object();
			json_object_set_new(thread, "link", json_deep_copy(link));
			json_object_set_new(thread, "comments", comments);
			snprintf(path, sizeof(path), "%s/comments/%s.json", out, id);
			write_json(path, thread);

			json_t *child = json_object();
			json_object_set_new(child, "kind", json_string("t3"));
			json_object_set_new(child, "data", link);
			json_array_append_new(children, child);
		}
		json_t *data = json_object(), *listing = json_object();
		char after[16];
		snprintf(after, sizeof(after), "%u", page + 1 < PAGES ? page + 1 : 0);
		json_object_set_new(data, "children", children);
		json_object_set_new(data, "after", json_string(after));
		json_object_set_new(listing, "kind", json_string("Listing"));
		json_object_set_new(listing, "data", data);
		snprintf(path, sizeof(path), "%s/r/front/%u.json", out, page);
		write_json(path, listing);
	}
	printf("%s: %s: %d pictures, %ld to %ld bytes, %ld in all\n", prog, out, PAGES * STORIES,
	       img_min, img_max, total);
	return 0;
}
