/* See include/panlab/net.h. */
#include "panlab/net.h"

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int pl_net_loopback_up(void)
{
	struct ifreq ifr = { 0 };
	int err = 0, fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0)
		err = -errno;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (!err && ioctl(fd, SIOCSIFFLAGS, &ifr) != 0)
		err = -errno;
	close(fd);
	return err;
}
