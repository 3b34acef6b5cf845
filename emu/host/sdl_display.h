/* An SDL2 window showing the virtio-gpu scanout. It only shows frames:
 * it never feeds input to the guest, so a run with the window is the
 * same run as without it.
 *
 * Ownership: sdl_display_new() allocates, sdl_display_free() frees. */
#ifndef PANLAB_HOST_SDL_DISPLAY_H
#define PANLAB_HOST_SDL_DISPLAY_H

#include <stddef.h>
#include <stdint.h>
#include "panlab/error.h"

typedef struct sdl_display sdl_display;

/* Returns NULL with err set if SDL cannot open a window. */
sdl_display *sdl_display_new(uint32_t width_px, uint32_t height_px, struct pl_error *err);
void sdl_display_free(sdl_display *d);
/* Shows a B8G8R8X8 frame of width_px * 4-byte rows. */
void sdl_display_show(sdl_display *d, const uint8_t *pixels, uint32_t width_px,
                      uint32_t height_px);
/* Handles window events; returns 1 once the user closed the window. */
int sdl_display_poll(sdl_display *d);

#endif
