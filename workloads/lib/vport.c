/* See include/panlab/vport.h. */
#include "panlab/vport.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SYSFS_PORTS "/sys/class/virtio-ports"

int pl_vport_path(const char *name, char *buf, size_t len)
{
	if ((size_t)snprintf(buf, len, "/dev/virtio-ports/%s", name) < len && access(buf, F_OK) == 0)
		return 0;
	DIR *d = opendir(SYSFS_PORTS);
	if (!d)
		return -ENOENT;
	int r = -ENOENT;
	for (struct dirent *de; r && (de = readdir(d)) != NULL;) {
		if (de->d_name[0] == '.')
			continue;
		char path[300], port[64] = "";
		snprintf(path, sizeof(path), SYSFS_PORTS "/%s/name", de->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(port, sizeof(port), f))
			port[strcspn(port, "\n")] = '\0';
		fclose(f);
		if (strcmp(port, name) == 0 && (size_t)snprintf(buf, len, "/dev/%s", de->d_name) < len)
			r = 0;
	}
	closedir(d);
	return r;
}
