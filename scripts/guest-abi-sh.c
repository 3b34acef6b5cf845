/* SPDX-License-Identifier: MIT */
/*
 * Writes the guest ABI (include/panlab/guest_abi.h) and the exit statuses scripts test
 * (include/panlab/error.h) as shell assignments, so that the scripts and the guest's /init read
 * the headers' values instead of a copy: `make build` runs it into build/guest_abi.sh, which
 * mkinitramfs.sh puts in the initramfs as /etc/panlab/guest_abi.sh.
 */
#include <stdio.h>

#include "panlab/error.h"
#include "panlab/guest_abi.h"

/* Single quotes keep every byte; the values hold none. */
static void put(const char *name, const char *value)
{
	printf("%s='%s'\n", name, value);
}

int main(void)
{
	printf("# Generated from include/panlab/guest_abi.h and error.h by scripts/guest-abi-sh.c: do not edit.\n");
	put("PL_PORT_TRACE", PL_PORT_TRACE);
	put("PL_PORT_INPUT", PL_PORT_INPUT);
	put("PL_PORT_DISPLAY", PL_PORT_DISPLAY);
	put("PL_PORT_CONFIG", PL_PORT_CONFIG);
	put("PL_RESULT_PREFIX", PL_RESULT_PREFIX);
	put("PL_GUEST_ADDR", PL_GUEST_ADDR);
	put("PL_GUEST_GATEWAY", PL_GUEST_GATEWAY);
	put("PL_CONTENT_HOST", PL_CONTENT_HOST);
	printf("PL_EXIT_SNAPSHOT_REFUSED=%d\n", PL_EXIT_SNAPSHOT_REFUSED);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
