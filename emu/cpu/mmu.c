/* VMSAv7 short-descriptor translation (ARM ARM B3.5), permission checks
 * (B3.7), fault reporting (B3.12 and B4.1.52 DFSR), the software TLB and
 * the memory access slow paths. */
#include "arm_int.h"

/* Short-descriptor fault status codes, ARM ARM B3.13.3. */
enum {
    FS_ALIGN = 0x01, FS_AF_SEC = 0x03, FS_TRANS_SEC = 0x05,
    FS_AF_PAGE = 0x06, FS_TRANS_PAGE = 0x07, FS_EXT = 0x08,
    FS_DOM_SEC = 0x09, FS_DOM_PAGE = 0x0b, FS_WALK_L1 = 0x0c,
    FS_PERM_SEC = 0x0d, FS_WALK_L2 = 0x0e, FS_PERM_PAGE = 0x0f,
};
#define FSR_WNR (1u << 11)

/* Inlined into each caller so that `match` is not an indirect call per
 * entry: the kernel issues TLBIMVA by the thousand. */
static inline __attribute__((always_inline)) void
tlb_each(arm_cpu *c, int (*match)(const tlb_entry *, uint32_t, uint32_t),
         uint32_t va, uint32_t asid)
{
    tlb_entry *all[3] = { &c->tlb_r[0][0], &c->tlb_w[0][0], &c->tlb_x[0][0] };
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 2 * TLB_SIZE; i++)
            if (!match || match(&all[k][i], va, asid))
                all[k][i].tag = TLB_INVALID;
    c->flow |= FLOW_BREAK;
}

void tlb_flush(arm_cpu *c)
{
    tlb_each(c, NULL, 0, 0);
    c->tlb_domains = 0;
    memset(c->tlb_large, 0, sizeof(c->tlb_large));
}

static int match_mva(const tlb_entry *e, uint32_t va, uint32_t asid)
{
    return e->tag != TLB_INVALID && !((e->tag ^ va) & e->region_mask) &&
           (asid > 0xff || e->global || e->asid == asid);
}

/* TLBIMVA and TLBIMVAA (all_asids). An entry made from a section goes if
 * any address of the section is named, as a real section entry would. */
void tlb_flush_mva(arm_cpu *c, uint32_t va, int all_asids)
{
    uint32_t asid = all_asids ? 0x100 : (va & 0xff);
    va &= ~0xfffu;
    if ((c->tlb_large[va >> 26] >> ((va >> 20) & 63)) & 1) {
        tlb_each(c, match_mva, va, asid);
        return;
    }
    tlb_entry *all[3] = { &c->tlb_r[0][0], &c->tlb_w[0][0], &c->tlb_x[0][0] };
    for (int k = 0; k < 3; k++)
        for (int pl1 = 0; pl1 < 2; pl1++) {
            tlb_entry *e = &all[k][pl1 * TLB_SIZE + ((va >> 12) & (TLB_SIZE - 1))];
            if (match_mva(e, va, asid))
                e->tag = TLB_INVALID;
        }
    c->flow |= FLOW_BREAK;
}

static int match_asid(const tlb_entry *e, uint32_t va, uint32_t asid)
{
    (void)va;
    return e->tag != TLB_INVALID && !e->global && e->asid == asid;
}

void tlb_flush_asid(arm_cpu *c, uint32_t asid)
{
    tlb_each(c, match_asid, 0, asid & 0xff);
}

static int match_domains(const tlb_entry *e, uint32_t mask, uint32_t unused)
{
    (void)unused;
    return e->tag != TLB_INVALID && e->domain < 16 && ((mask >> e->domain) & 1);
}

/* A domain's access as an order: no access (and the reserved 0b10) <
 * client < manager (ARM ARM B3.12.3). */
static int domain_rank(uint32_t dacr, int d)
{
    static const int rank[4] = { 0, 1, 0, 2 };
    return rank[(dacr >> (2 * d)) & 3];
}

/* Linux (CONFIG_CPU_SW_DOMAIN_PAN) rewrites DACR on every kernel entry and
 * user access. An entry grants only what its domain allowed when it was
 * made, so a domain whose access grows keeps its entries: only those of
 * the domains whose access shrinks are dropped. That spares half of
 * Linux's rewrites a scan of the TLB; the block still ends after any
 * change, as before. */
void tlb_dacr_changed(arm_cpu *c, uint32_t old_dacr, uint32_t new_dacr)
{
    uint32_t changed = 0, shrunk = 0, diff = old_dacr ^ new_dacr;
    for (int d = 0; d < 16; d++) {
        if (!((diff >> (2 * d)) & 3))
            continue;
        changed |= 1u << d;
        if (domain_rank(new_dacr, d) < domain_rank(old_dacr, d))
            shrunk |= 1u << d;
    }
    changed &= c->tlb_domains;
    shrunk &= c->tlb_domains;
    if (shrunk)
        tlb_each(c, match_domains, shrunk, 0);
    else if (changed)
        c->flow |= FLOW_BREAK;
}

static int read_pte(arm_cpu *c, uint32_t pa, uint32_t *v)
{
    uint8_t *p = phys_ram_ptr(c->sys->map, pa, 4);
    if (!p)
        return -1;
    memcpy(v, p, 4);
    return 0;
}

/* QEMU's ap_to_rw_prot / simple_ap_to_rw_prot for ARMv7: bit 0 read,
 * bit 1 write. */
static int ap_prot(uint32_t ap, int afe, int pl1)
{
    if (afe) {
        switch (ap >> 1) {
        case 0: return pl1 ? 3 : 0;
        case 1: return 3;
        case 2: return pl1 ? 1 : 0;
        default: return 1;
        }
    }
    switch (ap) {
    case 1: return pl1 ? 3 : 0;
    case 2: return pl1 ? 3 : 1;
    case 3: return 3;
    case 5: return pl1 ? 1 : 0;
    case 6: case 7: return 1;
    default: return 0;      /* 0: no access; 4: reserved */
    }
}

uint32_t mmu_translate(arm_cpu *c, uint32_t va, int acc, int pl1,
                       uint32_t *pa, tlb_entry *fill)
{
    const cp15_state *cp = &c->cp15;
    uint32_t wnr = acc == ACC_WRITE ? FSR_WNR : 0;
    if (!(cp->sctlr & SCTLR_M)) {
        *pa = va;
        if (fill) {
            fill->region_mask = 0xfffff000u;
            fill->global = 1;
            fill->domain = TLB_NO_DOMAIN;
        }
        return 0;
    }
    uint32_t n = cp->ttbcr & 7, l1;
    if (n && (va >> (32 - n))) {
        if (cp->ttbcr & (1u << 5))
            return FS_TRANS_SEC | wnr;
        l1 = (cp->ttbr1 & 0xffffc000u) | ((va >> 20) << 2);
    } else {
        if (cp->ttbcr & (1u << 4))
            return FS_TRANS_SEC | wnr;
        l1 = (cp->ttbr0 & (0xffffc000u << n)) |
             (((va << n) >> (n + 20)) << 2);
    }
    uint32_t d;
    if (read_pte(c, l1, &d))
        return FS_WALK_L1 | wnr;
    uint32_t type = d & 3, dom = 0, ap, xn, pxn, ng, mask, out, page = 0;
    switch (type) {
    case 1: {
        dom = (d >> 5) & 0xf;
        pxn = (d >> 2) & 1;
        /* QEMU checks the domain before fetching the L2 descriptor. */
        uint32_t dacr = (cp->dacr >> (2 * dom)) & 3;
        if (dacr == 0 || dacr == 2)
            return FS_DOM_PAGE | dom << 4 | wnr;
        uint32_t l2 = (d & 0xfffffc00u) | (((va >> 12) & 0xff) << 2);
        if (read_pte(c, l2, &d))
            return FS_WALK_L2 | dom << 4 | wnr;
        page = 1;
        if ((d & 3) == 0)
            return FS_TRANS_PAGE | dom << 4 | wnr;
        ap = ((d >> 9) & 1) << 2 | ((d >> 4) & 3);
        ng = (d >> 11) & 1;
        if ((d & 3) == 1) {         /* large page, 64 KiB */
            xn = (d >> 15) & 1;
            mask = 0xffff0000u;
        } else {                    /* small page, 4 KiB */
            xn = d & 1;
            mask = 0xfffff000u;
        }
        out = (d & mask) | (va & ~mask);
        break;
    }
    case 2:
        if (d & (1u << 18)) {       /* supersection, 16 MiB */
            mask = 0xff000000u;
        } else {
            dom = (d >> 5) & 0xf;
            mask = 0xfff00000u;
        }
        ap = ((d >> 15) & 1) << 2 | ((d >> 10) & 3);
        xn = (d >> 4) & 1;
        pxn = d & 1;
        ng = (d >> 17) & 1;
        out = (d & mask) | (va & ~mask);
        break;
    default:
        return FS_TRANS_SEC | wnr;
    }
    uint32_t domfsr = dom << 4 | wnr;
    uint32_t dacr = (cp->dacr >> (2 * dom)) & 3;
    if (dacr == 0 || dacr == 2)
        return (page ? FS_DOM_PAGE : FS_DOM_SEC) | domfsr;
    if (dacr == 1) {
        /* Client domain: as QEMU, XN first, then the access flag, then
         * AP (ARM ARM B3.7.1-B3.7.3). Execute needs read permission. */
        if (pxn && pl1)
            xn = 1;
        if (xn && acc == ACC_EXEC)
            return (page ? FS_PERM_PAGE : FS_PERM_SEC) | domfsr;
        int afe = (cp->sctlr & SCTLR_AFE) != 0;
        if (afe && !(ap & 1))
            return (page ? FS_AF_PAGE : FS_AF_SEC) | domfsr;
        int prot = ap_prot(ap, afe, pl1);
        int need = acc == ACC_WRITE ? 2 : 1;
        if (!(prot & need))
            return (page ? FS_PERM_PAGE : FS_PERM_SEC) | domfsr;
    }
    *pa = out;
    if (fill) {
        fill->region_mask = mask;
        fill->global = !ng;
        fill->domain = (uint8_t)dom;
    }
    return 0;
}

/* Translates va and installs a TLB entry; returns 0 or the FSR. */
static uint32_t tlb_fill(arm_cpu *c, tlb_entry t[2][TLB_SIZE], uint32_t va,
                         int acc, int pl1)
{
    tlb_entry n;
    uint32_t pa;
    uint32_t fsr = mmu_translate(c, va, acc, pl1, &pa, &n);
    if (fsr)
        return fsr;
    tlb_entry *e = tlb_slot(t, pl1, va);
    uint32_t vpage = va & ~0xfffu, ppage = pa & ~0xfffu;
    uint8_t *host = phys_ram_ptr(c->sys->map, ppage, 4096);
    e->pa_page = ppage;
    e->region_mask = n.region_mask;
    e->global = n.global;
    e->asid = c->asid;
    e->domain = n.domain;
    if (n.domain < 16)
        c->tlb_domains |= 1u << n.domain;
    if (n.region_mask != 0xfffff000u) {
        uint32_t first = (va & n.region_mask) >> 20;
        uint32_t last = (va | ~n.region_mask) >> 20;
        for (uint32_t sec = first; sec <= last; sec++)
            c->tlb_large[sec >> 6] |= 1ull << (sec & 63);
    }
    if (host) {
        e->tag = vpage;
        e->addend = (uintptr_t)host - vpage;
    } else {
        e->tag = vpage | TLB_IO;
        e->addend = 0;
    }
    return 0;
}

static tlb_entry *tlb_get(arm_cpu *c, tlb_entry t[2][TLB_SIZE], uint32_t va,
                          int acc, int pl1, uint32_t *fsr)
{
    tlb_entry *e = tlb_slot(t, pl1, va);
    *fsr = 0;
    if ((e->tag & ~TLB_IO) != (va & ~0xfffu) || e->tag == TLB_INVALID)
        *fsr = tlb_fill(c, t, va, acc, pl1);
    return e;
}

void data_abort(arm_cpu *c, uint32_t va, uint32_t fsr)
{
    c->cp15.dfsr = fsr;
    c->cp15.dfar = va;
    take_exception(c, EXC_DABT, c->r[15] - ((c->cpsr & CPSR_T) ? 4 : 8));
}

/* One naturally aligned access inside a page. */
static int access_one(arm_cpu *c, uint32_t va, int size, int pl1, int wr,
                      uint32_t *v)
{
    uint32_t fsr;
    tlb_entry *e = tlb_get(c, wr ? c->tlb_w : c->tlb_r, va,
                           wr ? ACC_WRITE : ACC_READ, pl1, &fsr);
    if (fsr) {
        data_abort(c, va, fsr);
        return 1;
    }
    if (!(e->tag & TLB_IO)) {
        uint8_t *p = (uint8_t *)(va + e->addend);
        if (wr)
            memcpy(p, v, size);
        else {
            *v = 0;
            memcpy(v, p, size);
        }
        return 0;
    }
    uint32_t pa = e->pa_page | (va & 0xfff);
    const phys_range *r = phys_find(c->sys->map, pa);
    if (!r) {
        data_abort(c, va, FS_EXT | (wr ? FSR_WNR : 0));
        return 1;
    }
    int lg = size == 4 ? 2 : size == 2 ? 1 : 0;
    if (r->ram) {
        uint8_t *p = r->ram + (pa - r->addr);
        if (wr)
            memcpy(p, v, size);
        else {
            *v = 0;
            memcpy(v, p, size);
        }
    } else if (wr) {
        if (r->write)
            r->write(r->opaque, pa - r->addr, *v, lg);
    } else {
        *v = r->read ? r->read(r->opaque, pa - r->addr, lg) : 0;
    }
    return 0;
}

/* ARM ARM A3.2.1: with SCTLR.A clear, LDR/STR/LDRH/STRH may be unaligned;
 * they are done byte by byte so page crossings fault precisely. */
static int access_slow(arm_cpu *c, uint32_t va, int size, int user, int wr,
                       uint32_t *v)
{
    int pl1 = user ? 0 : (int)c->priv;
    if (!(va & (size - 1)))
        return access_one(c, va, size, pl1, wr, v);
    if (c->cp15.sctlr & SCTLR_A) {
        data_abort(c, va, FS_ALIGN | (wr ? FSR_WNR : 0));
        return 1;
    }
    /* Check both pages first so a faulting store writes nothing, as on
     * QEMU. */
    uint32_t last = va + (uint32_t)size - 1, fsr;
    if ((last ^ va) & ~0xfffu) {
        tlb_entry (*t)[TLB_SIZE] = wr ? c->tlb_w : c->tlb_r;
        uint32_t pages[2] = { va, last & ~0xfffu };
        for (int i = 0; i < 2; i++) {
            tlb_get(c, t, pages[i], wr ? ACC_WRITE : ACC_READ, pl1, &fsr);
            if (fsr) {
                data_abort(c, pages[i], fsr);
                return 1;
            }
        }
    }
    uint32_t acc = 0;
    for (int i = 0; i < size; i++) {
        uint32_t b = (*v >> (8 * i)) & 0xff;
        if (access_one(c, va + i, 1, pl1, wr, &b))
            return 1;
        acc |= (b & 0xff) << (8 * i);
    }
    if (!wr)
        *v = acc;
    return 0;
}

int mem_read_slow(arm_cpu *c, uint32_t va, int size, int user, uint32_t *v)
{
    return access_slow(c, va, size, user, 0, v);
}

int mem_write_slow(arm_cpu *c, uint32_t va, int size, int user, uint32_t v)
{
    return access_slow(c, va, size, user, 1, &v);
}

int mem_va_to_pa(arm_cpu *c, uint32_t va, int acc, uint32_t *pa)
{
    uint32_t fsr;
    tlb_entry *e = tlb_get(c, acc == ACC_WRITE ? c->tlb_w : c->tlb_r, va, acc,
                           c->priv, &fsr);
    if (fsr) {
        data_abort(c, va, fsr);
        return 1;
    }
    *pa = e->pa_page | (va & 0xfff);
    return 0;
}

uint8_t *fetch_page(arm_cpu *c, uint32_t va, uint32_t *pa_page)
{
    uint32_t fsr;
    tlb_entry *e = tlb_get(c, c->tlb_x, va, ACC_EXEC, c->priv, &fsr);
    if (!fsr && (e->tag & TLB_IO))
        fsr = FS_EXT;
    if (fsr) {
        c->cp15.ifsr = fsr & ~FSR_WNR;
        c->cp15.ifar = va;
        take_exception(c, EXC_PABT, va);
        return NULL;
    }
    *pa_page = e->pa_page;
    return (uint8_t *)((va & ~0xfffu) + e->addend);
}
