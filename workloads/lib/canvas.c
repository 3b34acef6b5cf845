/* Software drawing into a window buffer. See include/panlab/view.h. */
#include "panlab/view.h"

void pl_canvas_fill_rect(struct pl_canvas *c, int x_px, int y_px, int w_px, int h_px,
			 uint32_t xrgb)
{
	int x0 = x_px < 0 ? 0 : x_px, y0 = y_px < 0 ? 0 : y_px;
	int x1 = x_px + w_px > c->width_px ? c->width_px : x_px + w_px;
	int y1 = y_px + h_px > c->height_px ? c->height_px : y_px + h_px;

	for (int y = y0; y < y1; y++) {
		uint32_t *row = c->pixels + (long)y * c->stride_px;
		for (int x = x0; x < x1; x++)
			row[x] = xrgb;
	}
}

/* Segments a..g as bits 0..6, standard seven-segment naming. */
static const uint8_t digit_segments[10] = {
	0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d, 0x7d, 0x07, 0x7f, 0x6f,
};

static void draw_digit(struct pl_canvas *c, int x, int y, int h, unsigned d, uint32_t xrgb)
{
	int w = h / 2, t = h / 10 > 0 ? h / 10 : 1, half = h / 2;
	uint8_t s = digit_segments[d];

	if (s & 0x01) pl_canvas_fill_rect(c, x, y, w, t, xrgb);
	if (s & 0x02) pl_canvas_fill_rect(c, x + w - t, y, t, half, xrgb);
	if (s & 0x04) pl_canvas_fill_rect(c, x + w - t, y + half, t, h - half, xrgb);
	if (s & 0x08) pl_canvas_fill_rect(c, x, y + h - t, w, t, xrgb);
	if (s & 0x10) pl_canvas_fill_rect(c, x, y + half, t, h - half, xrgb);
	if (s & 0x20) pl_canvas_fill_rect(c, x, y, t, half, xrgb);
	if (s & 0x40) pl_canvas_fill_rect(c, x, y + half - t / 2, w, t, xrgb);
}

void pl_canvas_draw_number(struct pl_canvas *c, int x_px, int y_px, int digit_h_px, uint64_t value,
			   uint32_t xrgb)
{
	char digits[20];
	int n = 0;

	do {
		digits[n++] = (char)(value % 10);
		value /= 10;
	} while (value);
	int advance = digit_h_px / 2 + digit_h_px / 5;
	for (int i = 0; i < n; i++)
		draw_digit(c, x_px + i * advance, y_px, digit_h_px, (unsigned)digits[n - 1 - i], xrgb);
}
