/* SPDX-License-Identifier: MIT */
/*
 * Writes the guest ABI (include/panlab/guest_abi.h) as shell assignments, so that the scripts and
 * the guest's /init read the header's values instead of a copy: `make build` runs it into
 * build/guest_abi.sh, which mkinitramfs.sh puts in the initramfs as /etc/panlab/guest_abi.sh.
 */
#include <stdio.h>

#include "panlab/guest_abi.h"

int main(void)
{
	static const struct {
		const char *name, *value;
	} vars[] = {
		{ "PL_PORT_TRACE", PL_PORT_TRACE },
		{ "PL_PORT_INPUT", PL_PORT_INPUT },
		{ "PL_PORT_DISPLAY", PL_PORT_DISPLAY },
		{ "PL_PORT_CONFIG", PL_PORT_CONFIG },
		{ "PL_RESULT_PREFIX", PL_RESULT_PREFIX },
		{ "PL_GUEST_ADDR", PL_GUEST_ADDR },
		{ "PL_GUEST_GATEWAY", PL_GUEST_GATEWAY },
		{ "PL_CONTENT_HOST", PL_CONTENT_HOST },
	};

	printf("# Generated from include/panlab/guest_abi.h by scripts/guest-abi-sh.c: do not edit.\n");
	/* Single quotes keep every byte; the values hold none. */
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		printf("%s='%s'\n", vars[i].name, vars[i].value);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
