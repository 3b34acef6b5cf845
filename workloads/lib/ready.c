/* See include/panlab/ready.h. */
#include "panlab/ready.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

int pl_ready_signal(void)
{
	const char *v = getenv("PANLAB_READY_FD");
	char *end;

	if (!v)
		return 0;
	long fd = strtol(v, &end, 10);
	if (*end != '\0' || fd < 0 || fd > 1024)
		return -EINVAL;
	/* Consumed once: a child of ours must not see a stale fd number. */
	unsetenv("PANLAB_READY_FD");
	char byte = 'R';
	int err = write((int)fd, &byte, 1) == 1 ? 0 : -errno;
	close((int)fd);
	return err;
}
