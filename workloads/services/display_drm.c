/* See display_drm.h. */
#include "display_drm.h"

#include <drm/drm.h>
#include <drm/drm_mode.h>
#include <drm/virtgpu_drm.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "panlab/wire.h"
#include "panlab/error.h"

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;
	do
		r = ioctl(fd, req, arg);
	while (r < 0 && (errno == EINTR || errno == EAGAIN));
	return r;
}

#define U64_PTR(p) ((uint64_t)(uintptr_t)(p))

/* The first connected connector with a mode; prefers the panel's own 480x800. */
static int pick_connector(int fd, const struct drm_mode_card_res *res, const uint32_t *conn_ids,
			  struct drm_mode_get_connector *out, struct drm_mode_modeinfo *mode)
{
	for (uint32_t i = 0; i < res->count_connectors; i++) {
		struct drm_mode_get_connector c = { .connector_id = conn_ids[i] };
		if (xioctl(fd, DRM_IOCTL_MODE_GETCONNECTOR, &c) < 0)
			return -errno;
		if (c.connection != 1 || c.count_modes == 0)
			continue;
		struct drm_mode_modeinfo *modes = calloc(c.count_modes, sizeof(*modes));
		uint32_t *encoders = calloc(c.count_encoders + 1, sizeof(*encoders));
		if (!modes || !encoders) {
			free(modes);
			free(encoders);
			return -ENOMEM;
		}
		/* Second call fills the arrays; props stay unrequested (counts zeroed). */
		c.modes_ptr = U64_PTR(modes);
		c.encoders_ptr = U64_PTR(encoders);
		c.count_props = 0;
		int r = xioctl(fd, DRM_IOCTL_MODE_GETCONNECTOR, &c);
		if (r == 0) {
			*mode = modes[0];
			for (uint32_t m = 0; m < c.count_modes; m++) {
				if (modes[m].hdisplay == PL_DISPLAY_WIDTH_PX && modes[m].vdisplay == PL_DISPLAY_HEIGHT_PX) {
					*mode = modes[m];
					break;
				}
				if (modes[m].type & DRM_MODE_TYPE_PREFERRED)
					*mode = modes[m];
			}
			if (!c.encoder_id && c.count_encoders)
				c.encoder_id = encoders[0];
			*out = c;
		}
		free(modes);
		free(encoders);
		return r < 0 ? -errno : 0;
	}
	return -ENODEV;
}

int display_open_drm(struct display *d, const char *card, struct pl_error *err)
{
	memset(d, 0, sizeof(*d));
	d->fd = open(card, O_RDWR | O_CLOEXEC);
	if (d->fd < 0) {
		pl_error_set(err, "open %s: %s", card, strerror(errno));
		return -1;
	}
	struct drm_mode_card_res res = { 0 };
	uint32_t *conn_ids = NULL, *crtc_ids = NULL;
	int r = -1;
	const char *step = "GETRESOURCES";
	if (xioctl(d->fd, DRM_IOCTL_MODE_GETRESOURCES, &res) < 0)
		goto out;
	conn_ids = calloc(res.count_connectors + 1, sizeof(*conn_ids));
	crtc_ids = calloc(res.count_crtcs + 1, sizeof(*crtc_ids));
	struct drm_mode_card_res res2 = {
		.connector_id_ptr = U64_PTR(conn_ids), .count_connectors = res.count_connectors,
		.crtc_id_ptr = U64_PTR(crtc_ids), .count_crtcs = res.count_crtcs,
	};
	if (!conn_ids || !crtc_ids || xioctl(d->fd, DRM_IOCTL_MODE_GETRESOURCES, &res2) < 0)
		goto out;

	step = "find a connected connector";
	struct drm_mode_get_connector conn;
	struct drm_mode_modeinfo mode;
	int e = pick_connector(d->fd, &res2, conn_ids, &conn, &mode);
	if (e) {
		errno = -e;
		goto out;
	}
	step = "GETENCODER";
	struct drm_mode_get_encoder enc = { .encoder_id = conn.encoder_id };
	if (xioctl(d->fd, DRM_IOCTL_MODE_GETENCODER, &enc) < 0)
		goto out;
	uint32_t crtc_id = enc.crtc_id;
	for (uint32_t i = 0; !crtc_id && i < res2.count_crtcs; i++)
		if (enc.possible_crtcs & (1u << i))
			crtc_id = crtc_ids[i];

	step = "CREATE_DUMB";
	struct drm_mode_create_dumb dumb = { .width = mode.hdisplay, .height = mode.vdisplay, .bpp = 32 };
	if (xioctl(d->fd, DRM_IOCTL_MODE_CREATE_DUMB, &dumb) < 0)
		goto out;
	step = "ADDFB";
	struct drm_mode_fb_cmd fb = { .width = dumb.width, .height = dumb.height, .pitch = dumb.pitch,
				      .bpp = 32, .depth = 24, .handle = dumb.handle };
	if (xioctl(d->fd, DRM_IOCTL_MODE_ADDFB, &fb) < 0)
		goto out;
	step = "MAP_DUMB";
	struct drm_mode_map_dumb map = { .handle = dumb.handle };
	if (xioctl(d->fd, DRM_IOCTL_MODE_MAP_DUMB, &map) < 0)
		goto out;
	d->pixels = mmap(NULL, dumb.size, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, (off_t)map.offset);
	if (d->pixels == MAP_FAILED) {
		d->pixels = NULL;
		step = "mmap dumb buffer";
		goto out;
	}
	d->bytes = dumb.size;
	d->fb_id = fb.fb_id;
	d->width_px = dumb.width;
	d->height_px = dumb.height;
	d->stride_px = (int)(dumb.pitch / 4);
	d->can_wait = 1;
	memset(d->pixels, 0, d->bytes);
	step = "SETCRTC";
	struct drm_mode_crtc set = { .set_connectors_ptr = U64_PTR(&conn.connector_id),
				     .count_connectors = 1, .crtc_id = crtc_id, .fb_id = fb.fb_id,
				     .mode_valid = 1, .mode = mode };
	if (xioctl(d->fd, DRM_IOCTL_MODE_SETCRTC, &set) < 0)
		goto out;
	r = 0;
out:
	if (r)
		pl_error_set(err, "%s: %s: %s", card, step, strerror(errno));
	free(conn_ids);
	free(crtc_ids);
	return r;
}

int display_open_memory(struct display *d, int width_px, int height_px, struct pl_error *err)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->bytes = (size_t)width_px * height_px * 4;
	d->pixels = calloc(1, d->bytes);
	if (!d->pixels) {
		pl_error_set(err, "display buffer: out of memory");
		return -1;
	}
	d->width_px = width_px;
	d->height_px = height_px;
	d->stride_px = width_px;
	return 0;
}

#define VIRTIO_GPU_FORMAT_B8G8R8X8_UNORM 2	/* virtio-gpu spec 5.7.6.8 */
#define PIPE_TEXTURE_2D 2			/* the only target the 2D driver takes */

/* Waits until the device has run every command queued so far (see display_drm.h). */
static int wait_device(struct display *d)
{
	struct drm_virtgpu_resource_create rc = { .target = PIPE_TEXTURE_2D,
						  .format = VIRTIO_GPU_FORMAT_B8G8R8X8_UNORM,
						  .width = 1, .height = 1, .depth = 1, .array_size = 1 };
	if (xioctl(d->fd, DRM_IOCTL_VIRTGPU_RESOURCE_CREATE, &rc) < 0) {
		/* Not virtio-gpu: nothing to wait on; the flush time is the ioctl's return. */
		if (errno != ENOTTY && errno != EINVAL)
			return -errno;
		d->can_wait = 0;
		return 0;
	}
	struct drm_virtgpu_3d_wait wait = { .handle = rc.bo_handle };
	int r = xioctl(d->fd, DRM_IOCTL_VIRTGPU_WAIT, &wait) < 0 ? -errno : 0;
	struct drm_gem_close close_bo = { .handle = rc.bo_handle };
	if (xioctl(d->fd, DRM_IOCTL_GEM_CLOSE, &close_bo) < 0 && !r)
		r = -errno;
	return r;
}

int display_flush(struct display *d)
{
	if (d->fd < 0)
		return 0;
	/* No clips: the whole framebuffer is dirty. */
	struct drm_mode_fb_dirty_cmd dirty = { .fb_id = d->fb_id };
	if (xioctl(d->fd, DRM_IOCTL_MODE_DIRTYFB, &dirty) < 0)
		return -errno;
	return d->can_wait ? wait_device(d) : 0;
}
