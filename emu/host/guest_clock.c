/* Guest CLOCK_MONOTONIC from the vDSO data page; see guest_clock.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "guest_clock.h"
#include "../guest.h"
#include "panlab/error.h"

int guest_clock_init(guest_clock *g, const phys_map *map,
                     const char *system_map, uint32_t page_offset,
                     uint32_t phys_offset, struct pl_error *err)
{
    FILE *f = fopen(system_map, "r");
    if (!f) {
        pl_error_set(err, "%s: cannot open: %s", system_map, strerror(errno));
        return -1;
    }
    char line[256];
    unsigned lineno = 0;
    int found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        lineno++;
        uint32_t va;
        char type, name[200];
        if (sscanf(line, "%" SCNx32 " %c %199s", &va, &type, name) == 3 &&
            !strcmp(name, GUEST_VDSO_SYMBOL)) {
            if (va < page_offset) {
                pl_error_set(err, "%s:%u: " GUEST_VDSO_SYMBOL " at 0x%08x is "
                         "below PAGE_OFFSET 0x%08x", system_map, lineno, va,
                         page_offset);
                fclose(f);
                return -1;
            }
            g->data_pa = va - page_offset + phys_offset;
            found = 1;
        }
    }
    fclose(f);
    if (!found) {
        pl_error_set(err, "%s: no symbol " GUEST_VDSO_SYMBOL ", expected the "
                 "System.map of a kernel built with CONFIG_VDSO", system_map);
        return -1;
    }
    g->map = map;
    return 0;
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
