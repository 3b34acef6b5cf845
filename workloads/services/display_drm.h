/*
 * The compositor's display: one DRM dumb buffer scanned out by the first
 * connected connector (KMS legacy API, no libdrm), flushed with DIRTYFB as
 * virtio-gpu requires to copy it to the host (virtio-gpu spec 5.7,
 * RESOURCE_FLUSH).
 *
 * DIRTYFB on a plain dumb buffer returns before the device has done the
 * transfer and the flush (Linux 6.1 fences only blob and cursor planes), so
 * display_flush then waits for a fenced command queued behind them: the
 * creation of a 1x1 resource (DRM_IOCTL_VIRTGPU_RESOURCE_CREATE, the only
 * 2D command user space can fence), which the device completes in order,
 * after the flush. It returns when the frame is on the display.
 */
#ifndef PANLAB_DISPLAY_DRM_H
#define PANLAB_DISPLAY_DRM_H

#include <stddef.h>
#include <stdint.h>
#include "panlab/error.h"

struct display {
	int fd;			/* -1: memory only (--no-display) */
	uint32_t fb_id;
	uint32_t *pixels;	/* mapped scan-out buffer */
	size_t bytes;
	int width_px;
	int height_px;
	int stride_px;
	int can_wait;		/* the driver is virtio-gpu: display_flush waits for the device */
};

/* Returns 0 or -1 with err set. */
int display_open_drm(struct display *d, const char *card, struct pl_error *err);
/* A display that only exists in memory. */
int display_open_memory(struct display *d, int width_px, int height_px, struct pl_error *err);
/* Flushes the whole buffer and waits until the device has shown it. Returns 0 or -errno. */
int display_flush(struct display *d);

#endif /* PANLAB_DISPLAY_DRM_H */
