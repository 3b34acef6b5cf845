/* SDL2 window for the scanout; see sdl_display.h. */
#include <stdio.h>
#include <stdlib.h>
#include <SDL.h>
#include "sdl_display.h"
#include "panlab/error.h"

struct sdl_display {
    SDL_Window *win;
    SDL_Renderer *ren;
    SDL_Texture *tex;
    uint32_t w, h;
};

sdl_display *sdl_display_new(uint32_t w, uint32_t h, struct pl_error *err)
{
    sdl_display *d = calloc(1, sizeof(*d));
    if (!d || SDL_Init(SDL_INIT_VIDEO) != 0) {
        pl_error_set(err, "--display sdl: %s",
                 d ? SDL_GetError() : "out of memory");
        free(d);
        return NULL;
    }
    d->w = w;
    d->h = h;
    d->win = SDL_CreateWindow("panlab phone", SDL_WINDOWPOS_UNDEFINED,
                              SDL_WINDOWPOS_UNDEFINED, (int)w, (int)h, 0);
    d->ren = d->win ? SDL_CreateRenderer(d->win, -1, 0) : NULL;
    /* B8G8R8X8 bytes are a little-endian 0xXXRRGGBB word: SDL's RGB888. */
    d->tex = d->ren ? SDL_CreateTexture(d->ren, SDL_PIXELFORMAT_RGB888,
                                        SDL_TEXTUREACCESS_STREAMING,
                                        (int)w, (int)h) : NULL;
    if (!d->tex) {
        pl_error_set(err, "--display sdl: %s", SDL_GetError());
        sdl_display_free(d);
        return NULL;
    }
    return d;
}

void sdl_display_free(sdl_display *d)
{
    if (!d)
        return;
    if (d->tex)
        SDL_DestroyTexture(d->tex);
    if (d->ren)
        SDL_DestroyRenderer(d->ren);
    if (d->win)
        SDL_DestroyWindow(d->win);
    SDL_Quit();
    free(d);
}

void sdl_display_show(sdl_display *d, const uint8_t *pixels, uint32_t w,
                      uint32_t h)
{
    if (w != d->w || h != d->h)
        return;                 /* only the full-screen scanout is shown */
    SDL_UpdateTexture(d->tex, NULL, pixels, (int)(w * 4));
    SDL_RenderClear(d->ren);
    SDL_RenderCopy(d->ren, d->tex, NULL, NULL);
    SDL_RenderPresent(d->ren);
}

int sdl_display_poll(sdl_display *d)
{
    SDL_Event e;
    int quit = 0;
    (void)d;
    while (SDL_PollEvent(&e))
        quit |= e.type == SDL_QUIT;
    return quit;
}
