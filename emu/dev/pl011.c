/* PL011 UART; register offsets from ARM DDI 0183G §3.2. */
#include <stdio.h>
#include <stdlib.h>
#include "pl011.h"
#include "../snapio.h"
#include "panlab/error.h"

enum {
    UARTDR = 0x00, UARTFR = 0x18, UARTILPR = 0x20,
    UARTIBRD = 0x24, UARTFBRD = 0x28, UARTLCR_H = 0x2c, UARTCR = 0x30,
    UARTIFLS = 0x34, UARTIMSC = 0x38, UARTRIS = 0x3c, UARTMIS = 0x40,
    UARTICR = 0x44, UARTDMACR = 0x48,
};
enum { FR_RXFE = 1u << 4, FR_TXFE = 1u << 7 };
enum { INT_TX = 1u << 5 };
enum { CR_LBE = 1u << 7 };

struct pl011 {
    irq_line irq;
    byte_sink out;
    uint32_t ibrd, fbrd, lcr_h, cr, ifls, imsc, ris, dmacr, ilpr;
};

/* UARTPeriphID0-3 (PL011 r1p5) and UARTPCellID0-3, §3.3.14-15. */
static const uint8_t pl011_id[8] = { 0x11, 0x10, 0x14, 0x00,
                                     0x0d, 0xf0, 0x05, 0xb1 };

pl011 *pl011_new(irq_line irq, byte_sink out)
{
    pl011 *u = pl_xcalloc(1, sizeof(*u));
    u->irq = irq;
    u->out = out;
    u->cr = 0x300;              /* TXE, RXE: reset value */
    u->ifls = 0x12;
    return u;
}

void pl011_free(pl011 *u)
{
    free(u);
}

static void update(pl011 *u)
{
    irq_set(&u->irq, (u->ris & u->imsc) != 0);
}

uint32_t pl011_read(void *opaque, uint32_t off, int size_log2)
{
    pl011 *u = opaque;
    (void)size_log2;
    if (off >= 0xfe0 && off < 0x1000)
        return pl011_id[(off - 0xfe0) >> 2];
    switch (off) {
    case UARTFR: return FR_RXFE | FR_TXFE;
    case UARTILPR: return u->ilpr;
    case UARTIBRD: return u->ibrd;
    case UARTFBRD: return u->fbrd;
    case UARTLCR_H: return u->lcr_h;
    case UARTCR: return u->cr;
    case UARTIFLS: return u->ifls;
    case UARTIMSC: return u->imsc;
    case UARTRIS: return u->ris;
    case UARTMIS: return u->ris & u->imsc;
    case UARTDMACR: return u->dmacr;
    default: return 0;      /* DR and RSR: nothing is ever received */
    }
}

void pl011_write(void *opaque, uint32_t off, uint32_t val, int size_log2)
{
    pl011 *u = opaque;
    (void)size_log2;
    switch (off) {
    case UARTDR: {
        uint8_t b = (uint8_t)val;
        if (!(u->cr & CR_LBE))      /* loopback bytes never leave */
            u->out.put(u->out.opaque, &b, 1);
        /* The FIFO drains at once, so the transmit interrupt (level below
         * IFLS) is raised by every write, as on QEMU (§3.4.3). */
        u->ris |= INT_TX;
        break;
    }
    case UARTILPR: u->ilpr = val & 0xff; break;
    case UARTIBRD: u->ibrd = val & 0xffff; break;
    case UARTFBRD: u->fbrd = val & 0x3f; break;
    case UARTLCR_H: u->lcr_h = val & 0xff; break;
    case UARTCR: u->cr = val & 0xff87; break;
    case UARTIFLS: u->ifls = val & 0x3f; break;
    case UARTIMSC: u->imsc = val & 0x7ff; break;
    case UARTICR: u->ris &= ~val; break;
    case UARTDMACR: u->dmacr = val & 7; break;
    default: break;
    }
    update(u);
}

void pl011_register(pl011 *u, phys_map *m, uint32_t addr)
{
    phys_register_device(m, addr, PL011_SIZE, u, pl011_read, pl011_write);
}

/* ---- snapshots ---- */

#define PL011_REGS(X) X(ibrd) X(fbrd) X(lcr_h) X(cr) X(ifls) X(imsc) X(ris) \
    X(dmacr) X(ilpr)

void pl011_save(const pl011 *u, snap_w *w)
{
#define PUT(f) snap_put_u32(w, u->f);
    PL011_REGS(PUT)
#undef PUT
}

int pl011_load(pl011 *u, snap_r *r)
{
#define GET(f) u->f = snap_get_u32(r);
    PL011_REGS(GET)
#undef GET
    return snap_r_failed(r) ? -1 : 0;
}
