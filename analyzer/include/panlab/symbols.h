/* SPDX-License-Identifier: MIT */
/*
 * Stage 6e (symbols.c): execution contexts -> `function+0xoffset` per frame, from the symbol
 * tables of the guest's static binaries (elfutils libdwfl), found by the process's name.
 *
 * Ownership: pl_symbols_build fills a caller-provided struct, allocating its strings;
 * pl_symbols_free releases them. The tasks and intervals are only read.
 */
#ifndef PANLAB_SYMBOLS_H
#define PANLAB_SYMBOLS_H

#include <stdint.h>

#include "panlab/error.h"
#include "panlab/tasks.h"

struct pl_symbols {
	uint64_t ncontexts;
	/*
	 * ncontexts * PL_CONTEXT_FRAMES names: the symbol covering each return address and the
	 * offset into it ("on_tap+0x74"), or the address ("0x11aa4") where no binary or symbol
	 * covers it; NULL past a context's frames.
	 */
	char **frames;
	char **binaries; /* per context: the binary read, NULL if none */
};

/*
 * A context's process is named by its main thread (the thread whose tid is the process id);
 * its binary is dir/NAME, or the one file of dir whose name starts with NAME when NAME is 15
 * characters, the kernel's limit on a thread name. dir NULL: every frame as its address.
 * Returns 0, or -1 with err set when dir is given and cannot be read.
 */
int pl_symbols_build(const struct pl_tasks *t, const struct pl_intervals *iv, const char *dir,
		     struct pl_symbols *out, struct pl_error *err);
const char *pl_symbols_frame(const struct pl_symbols *s, uint64_t context, uint32_t frame);
void pl_symbols_free(struct pl_symbols *s);

#endif /* PANLAB_SYMBOLS_H */
