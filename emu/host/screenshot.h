/* PNG screenshots of the scanout, with libpng.
 *
 * Ownership: the caller keeps the pixels. */
#ifndef PANLAB_HOST_SCREENSHOT_H
#define PANLAB_HOST_SCREENSHOT_H

#include <stddef.h>
#include <stdint.h>
#include "panlab/error.h"

/* Writes a B8G8R8X8 frame as an RGB PNG. Returns 0, or -1 with err set. */
int screenshot_png(const char *path, const uint8_t *pixels, uint32_t width_px,
                   uint32_t height_px, struct pl_error *err);

#endif
