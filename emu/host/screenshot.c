/* PNG screenshots through libpng's simplified API (png.h, png_image). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>
#include "screenshot.h"
#include "panlab/error.h"

int screenshot_png(const char *path, const uint8_t *pixels, uint32_t w,
                   uint32_t h, struct pl_error *err)
{
    png_image img;
    memset(&img, 0, sizeof(img));
    img.version = PNG_IMAGE_VERSION;
    img.width = w;
    img.height = h;
    /* The X byte is padding, often 0: dropping it keeps the image opaque. */
    img.format = PNG_FORMAT_RGB;
    uint8_t *rgb = malloc((size_t)w * h * 3);
    if (!rgb) {
        pl_error_set(err, "%s: out of memory", path);
        return -1;
    }
    for (size_t i = 0; i < (size_t)w * h; i++) {
        rgb[3 * i] = pixels[4 * i + 2];
        rgb[3 * i + 1] = pixels[4 * i + 1];
        rgb[3 * i + 2] = pixels[4 * i];
    }
    int ok = png_image_write_to_file(&img, path, 0, rgb, (png_int_32)(w * 3),
                                     NULL);
    free(rgb);
    if (!ok) {
        pl_error_set(err, "%s: cannot write PNG: %s", path, img.message);
        return -1;
    }
    return 0;
}
