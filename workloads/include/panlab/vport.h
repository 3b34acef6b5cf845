/*
 * virtio-serial ports by name. udev would link /dev/virtio-ports/NAME to the
 * port's /dev/vportNpM; the guest has no udev, so the name is also looked up
 * in /sys/class/virtio-ports/<dev>/name (virtio 1.2 §5.3.6.2, port name).
 */
#ifndef PANLAB_VPORT_H
#define PANLAB_VPORT_H

#include <stddef.h>

/* Fill buf with the port's device path. Returns 0, or -ENOENT if no port has that name. */
int pl_vport_path(const char *name, char *buf, size_t len);

#endif /* PANLAB_VPORT_H */
