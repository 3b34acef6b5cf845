/* Physical memory map: RAM blocks and MMIO devices, TinyEMU style.
 *
 * Ownership: phys_map_new() allocates the map and phys_map_free() frees it
 * together with the RAM it allocated. Device opaque pointers stay owned by
 * the caller. Addresses and sizes are in bytes; accesses are 1, 2 or 4 bytes
 * (size_log2 0..2), little-endian. */
#ifndef PANLAB_PHYSMEM_H
#define PANLAB_PHYSMEM_H

#include <stdint.h>
#include <stddef.h>

typedef uint32_t phys_read_fn(void *opaque, uint32_t offset, int size_log2);
typedef void phys_write_fn(void *opaque, uint32_t offset, uint32_t val,
                           int size_log2);

typedef struct phys_range {
    uint32_t addr;
    uint32_t size_bytes;
    uint8_t *ram;               /* host memory, or NULL for a device */
    void *opaque;
    phys_read_fn *read;
    phys_write_fn *write;
} phys_range;

/* The ranges grow as devices register, before the guest runs: a pointer
 * phys_find() returns stays valid until the next registration. */
typedef struct phys_map {
    int n, cap;
    phys_range *r;
} phys_map;

phys_map *phys_map_new(void);
void phys_map_free(phys_map *m);
/* Returns the host pointer of the new zeroed RAM block. */
uint8_t *phys_register_ram(phys_map *m, uint32_t addr, uint32_t size_bytes);
void phys_register_device(phys_map *m, uint32_t addr, uint32_t size_bytes,
                          void *opaque, phys_read_fn *read,
                          phys_write_fn *write);
/* The range holding addr, or NULL (the CPU turns that into an external
 * abort, as QEMU's virt does for unassigned addresses). */
const phys_range *phys_find(const phys_map *m, uint32_t addr);
/* Host pointer for [addr, addr+len) if it lies inside one RAM block. */
uint8_t *phys_ram_ptr(const phys_map *m, uint32_t addr, uint32_t len);

#endif
