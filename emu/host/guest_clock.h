/* The guest kernel's CLOCK_MONOTONIC, read from outside the guest.
 *
 * Linux publishes its timekeeping for the vDSO in a data page
 * (include/vdso/datapage.h): for the arch-timer clocksource,
 *   mono_ns = basetime.sec * 1e9
 *           + ((basetime.nsec + ((counter - cycle_last) & mask) * mult)
 *              >> shift)
 * which is exactly what clock_gettime(CLOCK_MONOTONIC) computes in the
 * guest. The page is found through the kernel's System.map
 * (vdso_data_store), so ground truth carries the guest's own clock
 * without any guest code. Until the guest's timekeeping runs on the arch
 * timer, no value is available.
 *
 * Ownership: the struct is the caller's; it keeps a pointer to the map. */
#ifndef PANLAB_HOST_GUEST_CLOCK_H
#define PANLAB_HOST_GUEST_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include "../physmem.h"
#include "panlab/error.h"

typedef struct guest_clock {
    const phys_map *map;
    const char *system_map;     /* the map's path, for errors */
    uint32_t data_pa;           /* physical address of vdso_data[0] */
    uint32_t text_va, banner_va, banner_pa;     /* to check the map (guest.h) */
} guest_clock;

/* Finds vdso_data_store, _text and linux_banner in system_map (which must
 * outlive g); kernel virtual addresses map to physical ones as
 * va - page_offset + phys_offset. Returns 0, or -1 with err set
 * ("path: ..."). */
int guest_clock_init(guest_clock *g, const phys_map *map,
                     const char *system_map, uint32_t page_offset,
                     uint32_t phys_offset, struct pl_error *err);
/* Whether the map is the running kernel's: linux_banner must hold the
 * banner in image (the kernel Image, starting at _text) or, with image
 * NULL, in guest RAM (a restored kernel). Returns 0, or -1 with err set. */
int guest_clock_check(const guest_clock *g, const uint8_t *image, size_t image_bytes,
                      struct pl_error *err);
/* The guest's CLOCK_MONOTONIC at counter value `ticks`. Returns 0, or -1
 * if the guest has not published an arch-timer clock yet. */
int guest_clock_mono_ns(const guest_clock *g, uint64_t ticks, uint64_t *ns);

#endif
