/* Guest CLOCK_MONOTONIC from the vDSO data page; see guest_clock.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "guest_clock.h"
#include "../guest.h"
#include "panlab/error.h"
#include "panlab/read_file.h"

int guest_clock_init(guest_clock *g, const phys_map *map,
                     const char *system_map, uint32_t page_offset,
                     uint32_t phys_offset, struct pl_error *err)
{
    static const char *const names[] = { GUEST_VDSO_SYMBOL, GUEST_TEXT_SYMBOL,
                                         GUEST_BANNER_SYMBOL };
    uint32_t va[3];
    unsigned at[3] = { 0 };     /* line of each, 0 if missing */
    char *text;
    size_t len;
    if (pl_read_file(system_map, PL_CAP_TEXT_BYTES, "a System.map", &text, &len, err) < 0)
        return -1;
    unsigned lineno = 0;
    for (char *line = text, *next; line < text + len; line = next) {
        char *nl = memchr(line, '\n', (size_t)(text + len - line));
        next = nl ? nl + 1 : text + len;
        if (nl) /* sscanf measures its whole string: a line, not the file */
            *nl = '\0';
        lineno++;
        uint32_t v;
        char type, name[200];
        if (sscanf(line, "%" SCNx32 " %c %199s", &v, &type, name) != 3)
            continue;
        for (int i = 0; i < 3; i++)
            if (!at[i] && !strcmp(name, names[i])) {
                at[i] = lineno;
                va[i] = v;
            }
    }
    free(text);
    for (int i = 0; i < 3; i++) {
        if (!at[i]) {
            pl_error_set(err, "%s: no symbol %s, expected the System.map of a kernel "
                         "built with CONFIG_VDSO", system_map, names[i]);
            return -1;
        }
        if (va[i] < page_offset) {
            pl_error_at_line(err, system_map, at[i], "%s at 0x%08x is below "
                             "PAGE_OFFSET 0x%08x", names[i], va[i], page_offset);
            return -1;
        }
    }
    g->map = map;
    g->system_map = system_map;
    g->data_pa = va[0] - page_offset + phys_offset;
    g->text_va = va[1];
    g->banner_va = va[2];
    g->banner_pa = va[2] - page_offset + phys_offset;
    return 0;
}

int guest_clock_check(const guest_clock *g, const uint8_t *image, size_t image_bytes,
                      struct pl_error *err)
{
    static const char banner[] = GUEST_BANNER_PREFIX;
    const size_t n = sizeof(banner) - 1;
    uint64_t off = (uint64_t)g->banner_va - g->text_va;
    const uint8_t *p = image ? (g->banner_va >= g->text_va && off + n <= image_bytes ?
                                image + off : NULL)
                             : phys_ram_ptr(g->map, g->banner_pa, n);
    if (p && !memcmp(p, banner, n))
        return 0;
    char where[64];
    if (image)
        snprintf(where, sizeof(where), "byte %llu of the kernel image",
                 (unsigned long long)off);
    else
        snprintf(where, sizeof(where), "physical 0x%08x of the restored guest",
                 g->banner_pa);
    pl_error_set(err, "%s: " GUEST_BANNER_SYMBOL " at 0x%08x (%s) does not hold \"%s\", "
                 "expected the System.map of this kernel build (a map of another build "
                 "would put the guest's clock elsewhere)", g->system_map, g->banner_va,
                 where, GUEST_BANNER_PREFIX "...");
    return -1;
}

int guest_clock_mono_ns(const guest_clock *g, uint64_t ticks, uint64_t *ns)
{
    const uint8_t *p = phys_ram_ptr(g->map, g->data_pa, GUEST_VDSO_BYTES);
    if (!p)
        return -1;
    uint32_t seq, mode, mult, shift;
    uint64_t last, mask, sec, nsec;
    memcpy(&seq, p + GUEST_VDSO_SEQ, 4);
    memcpy(&mode, p + GUEST_VDSO_MODE, 4);
    memcpy(&last, p + GUEST_VDSO_CYCLE_LAST, 8);
    memcpy(&mask, p + GUEST_VDSO_MASK, 8);
    memcpy(&mult, p + GUEST_VDSO_MULT, 4);
    memcpy(&shift, p + GUEST_VDSO_SHIFT, 4);
    memcpy(&sec, p + GUEST_VDSO_MONO, 8);
    memcpy(&nsec, p + GUEST_VDSO_MONO + 8, 8);
    /* Odd seq: a core was stopped in the middle of an update; mode 0 is
     * VDSO_CLOCKMODE_NONE. */
    if ((seq & 1) || mode == 0 || mult == 0 || shift >= 64)
        return -1;
    uint64_t delta = (ticks - last) & mask;
    *ns = sec * 1000000000ull + ((nsec + delta * mult) >> shift);
    return 0;
}
