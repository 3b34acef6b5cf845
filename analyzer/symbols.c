/* SPDX-License-Identifier: MIT */
/*
 * Symbolising execution contexts on the host: each process's static binary (non-PIE, so a
 * return address is an address in the file's own layout) reported to libdwfl offline, and
 * each frame looked up in its symbol table.
 */
#include "panlab/symbols.h"

#include <dirent.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The kernel's TASK_COMM_LEN less its NUL: a longer program name is cut to this. */
#define COMM_CHARS 15

static const char *process_name(const struct pl_intervals *iv, uint32_t tgid)
{
	for (uint32_t i = 0; i < iv->nthreads; i++)
		if (iv->threads[i].tid == tgid)
			return iv->threads[i].name;
	return "";
}

/* dir/name, or the one entry of dir starting with a name cut to COMM_CHARS; NULL if none. */
static char *find_binary(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	if (!*name || strchr(name, '/'))
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return pl_xstrdup(path);
	if (strlen(name) != COMM_CHARS)
		return NULL;
	DIR *d = opendir(dir);
	char *found = NULL;
	int matches = 0;

	if (!d)
		return NULL;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strncmp(e->d_name, name, COMM_CHARS) == 0) {
			matches++;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		}
	closedir(d);
	if (matches == 1)
		found = pl_xstrdup(path);
	return found;
}

static char *frame_name(Dwfl_Module *mod, uint32_t addr)
{
	char buf[256];
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = mod ? dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL) :
				 NULL;

	if (name)
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, name, (uint64_t)off);
	else
		snprintf(buf, sizeof(buf), "0x%" PRIx32, addr);
	return pl_xstrdup(buf);
}

static const Dwfl_Callbacks offline = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

int pl_symbols_build(const struct pl_tasks *t, const struct pl_intervals *iv, const char *dir,
		     struct pl_symbols *out, struct pl_error *err)
{
	struct stat st;
	uint64_t n = t->ncontexts ? t->ncontexts : 1;

	memset(out, 0, sizeof(*out));
	if (dir && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
		pl_error_file(err, dir, "cannot read the guest binaries: %s, expected a directory",
			      stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
		return -1;
	}
	out->ncontexts = t->ncontexts;
	out->frames = pl_xcalloc(n * PL_CONTEXT_FRAMES, sizeof(*out->frames));
	out->binaries = pl_xcalloc(n, sizeof(*out->binaries));
	/* Contexts are sorted by process: one binary is open at a time. */
	Dwfl *dwfl = NULL;
	Dwfl_Module *mod = NULL;
	char *binary = NULL;

	for (uint64_t c = 0; c < t->ncontexts; c++) {
		const struct pl_context *ctx = &t->contexts[c];

		if (c == 0 || ctx->tgid != t->contexts[c - 1].tgid) {
			if (dwfl)
				dwfl_end(dwfl);
			dwfl = NULL;
			mod = NULL;
			free(binary);
			binary = dir ? find_binary(dir, process_name(iv, ctx->tgid)) : NULL;
			if (binary && (dwfl = dwfl_begin(&offline)) != NULL) {
				mod = dwfl_report_offline(dwfl, "", binary, -1);
				dwfl_report_end(dwfl, NULL, NULL);
			}
		}
		if (mod)
			out->binaries[c] = pl_xstrdup(binary);
		for (uint32_t f = 0; f < ctx->nframes; f++)
			out->frames[c * PL_CONTEXT_FRAMES + f] = frame_name(mod, ctx->frames[f]);
	}
	if (dwfl)
		dwfl_end(dwfl);
	free(binary);
	return 0;
}

const char *pl_symbols_frame(const struct pl_symbols *s, uint64_t context, uint32_t frame)
{
	return s->frames[context * PL_CONTEXT_FRAMES + frame];
}

void pl_symbols_free(struct pl_symbols *s)
{
	for (uint64_t c = 0; c < s->ncontexts; c++) {
		for (uint32_t f = 0; f < PL_CONTEXT_FRAMES; f++)
			free(s->frames[c * PL_CONTEXT_FRAMES + f]);
		free(s->binaries[c]);
	}
	free(s->frames);
	free(s->binaries);
	memset(s, 0, sizeof(*s));
}
