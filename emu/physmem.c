/* Physical memory map; see physmem.h. */
#include <stdlib.h>
#include "physmem.h"
#include "panlab/error.h"

phys_map *phys_map_new(void)
{
    phys_map *m = pl_xcalloc(1, sizeof(*m));
    return m;
}

void phys_map_free(phys_map *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->n; i++)
        free(m->r[i].ram);
    free(m->r);
    free(m);
}

static phys_range *add_range(phys_map *m, uint32_t addr, uint32_t size)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->r = pl_xrealloc(m->r, (size_t)m->cap, sizeof(*m->r));
    }
    phys_range *r = &m->r[m->n++];
    *r = (phys_range){ .addr = addr, .size_bytes = size };
    return r;
}

uint8_t *phys_register_ram(phys_map *m, uint32_t addr, uint32_t size_bytes)
{
    phys_range *r = add_range(m, addr, size_bytes);
    r->ram = pl_xcalloc(1, size_bytes);
    return r->ram;
}

void phys_register_device(phys_map *m, uint32_t addr, uint32_t size_bytes,
                          void *opaque, phys_read_fn *read,
                          phys_write_fn *write)
{
    phys_range *r = add_range(m, addr, size_bytes);
    r->opaque = opaque;
    r->read = read;
    r->write = write;
}

const phys_range *phys_find(const phys_map *m, uint32_t addr)
{
    for (int i = 0; i < m->n; i++) {
        const phys_range *r = &m->r[i];
        if (addr - r->addr < r->size_bytes)
            return r;
    }
    return NULL;
}

uint8_t *phys_ram_ptr(const phys_map *m, uint32_t addr, uint32_t len)
{
    const phys_range *r = phys_find(m, addr);
    if (!r || !r->ram || addr - r->addr + (uint64_t)len > r->size_bytes)
        return NULL;
    return r->ram + (addr - r->addr);
}
