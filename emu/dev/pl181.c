/* PL181 MMCI; register map and status bits from ARM DDI 0205B §3.2-3.3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pl181.h"
#include "panlab/error.h"

enum {
    MCI_POWER = 0x00, MCI_CLOCK = 0x04, MCI_ARGUMENT = 0x08,
    MCI_COMMAND = 0x0c, MCI_RESPCMD = 0x10, MCI_RESP0 = 0x14,
    MCI_DATATIMER = 0x24, MCI_DATALENGTH = 0x28, MCI_DATACTRL = 0x2c,
    MCI_DATACNT = 0x30, MCI_STATUS = 0x34, MCI_CLEAR = 0x38,
    MCI_MASK0 = 0x3c, MCI_MASK1 = 0x40, MCI_SELECT = 0x44,
    MCI_FIFOCNT = 0x48, MCI_FIFO = 0x80, MCI_FIFO_END = 0xc0,
};
enum {
    CMD_RESPONSE = 1u << 6, CMD_LONGRSP = 1u << 7, CMD_ENABLE = 1u << 10,
    DCTRL_ENABLE = 1u << 0, DCTRL_READ = 1u << 1,
};
enum {
    ST_CMDTIMEOUT = 1u << 2, ST_DATATIMEOUT = 1u << 3,
    ST_CMDRESPEND = 1u << 6, ST_CMDSENT = 1u << 7, ST_DATAEND = 1u << 8,
    ST_TXACTIVE = 1u << 12, ST_RXACTIVE = 1u << 13,
    ST_TXFIFOHALFEMPTY = 1u << 14, ST_RXFIFOHALFFULL = 1u << 15,
    ST_RXFIFOFULL = 1u << 17, ST_TXFIFOEMPTY = 1u << 18,
    ST_RXFIFOEMPTY = 1u << 19, ST_RXDATAAVLBL = 1u << 21,
    ST_STATIC = 0x7ffu,         /* the flags MCI_CLEAR clears */
};
#define FIFO_BYTES 64u

/* MCIPeriphID0-3 (PL181, r0) and MCIPCellID0-3, §3.3.17-18. */
static const uint8_t pl181_id[8] = { 0x81, 0x11, 0x04, 0x00,
                                     0x0d, 0xf0, 0x05, 0xb1 };

struct pl181 {
    vt_engine *t;
    irq_line irq[2];
    sd_card *card;
    uint32_t power, clock, arg, cmd, respcmd, resp[4];
    uint32_t datatimer, datalength, datactrl, status, mask[2], select;
    /* The data phase: the card's direction (after its command), whether
     * it runs (DPSM enabled too), its length, the bytes that crossed the
     * card bus and, for reads, the bytes the CPU took from the FIFO. */
    uint32_t dir, running, total, moved, taken;
    uint64_t block_ns;          /* read: bus time of one block */
    uint32_t block_bytes;
    vt_event arrive, busy_end;
    uint8_t buf[SD_MAX_XFER_BYTES];
};

static uint32_t status_now(const pl181 *p)
{
    uint32_t s = p->status;
    if (p->running && p->dir == SD_DATA_READ && p->taken < p->total) {
        uint32_t avail = p->moved - p->taken;
        s |= ST_RXACTIVE;
        s |= avail ? ST_RXDATAAVLBL : ST_RXFIFOEMPTY;
        s |= avail >= FIFO_BYTES / 2 ? ST_RXFIFOHALFFULL : 0;
        s |= avail >= FIFO_BYTES ? ST_RXFIFOFULL : 0;
    }
    if (p->running && p->dir == SD_DATA_WRITE && p->moved < p->total)
        s |= ST_TXACTIVE | ST_TXFIFOEMPTY | ST_TXFIFOHALFEMPTY;
    return s;
}

static void update(pl181 *p)
{
    uint32_t s = status_now(p);
    irq_set(&p->irq[0], (s & p->mask[0]) != 0);
    irq_set(&p->irq[1], (s & p->mask[1]) != 0);
}

/* The next read block has crossed the card bus into the FIFO. */
static void arrive(void *opaque)
{
    pl181 *p = opaque;
    uint32_t left = p->total - p->moved;
    p->moved += left < p->block_bytes ? left : p->block_bytes;
    if (p->moved < p->total)
        vt_schedule(p->t, &p->arrive, vt_now_ns(p->t) + p->block_ns);
    else
        p->status |= ST_DATAEND;
    update(p);
}

/* The card's busy signal after a write has ended. */
static void busy_end(void *opaque)
{
    pl181 *p = opaque;
    p->status |= ST_DATAEND;
    update(p);
}

static void stop_data(pl181 *p)
{
    vt_cancel(p->t, &p->arrive);
    vt_cancel(p->t, &p->busy_end);
    p->running = 0;
}

/* Starts the data phase once the card has a direction and the DPSM is on
 * in the same direction. */
static void maybe_start(pl181 *p)
{
    if (p->running || p->dir == SD_DATA_NONE || !(p->datactrl & DCTRL_ENABLE))
        return;
    int read = (p->datactrl & DCTRL_READ) != 0;
    if (read != (p->dir == SD_DATA_READ))
        return;
    p->running = 1;
    p->total = p->datalength < SD_MAX_XFER_BYTES ? p->datalength
                                                 : SD_MAX_XFER_BYTES;
    p->moved = p->taken = 0;
    p->block_bytes = 1u << ((p->datactrl >> 4) & 0xf);
    if (!read)
        return;
    uint64_t first_ns;
    if (!p->card || sd_card_read(p->card, p->buf, p->total, p->block_bytes,
                                 &first_ns, &p->block_ns) < 0) {
        p->status |= ST_DATATIMEOUT;
        p->running = 0;
        return;
    }
    vt_schedule(p->t, &p->arrive, first_ns);
}

static void command(pl181 *p)
{
    enum sd_data_dir dir = SD_DATA_NONE;
    uint32_t r[4] = { 0 };
    uint32_t index = p->cmd & 0x3f;
    enum sd_response got = p->card ? sd_card_command(p->card, index, p->arg, r, &dir)
                                   : SD_NO_RESPONSE;
    if (!(p->cmd & CMD_RESPONSE)) {
        p->status |= ST_CMDSENT;
    } else if (got == SD_NO_RESPONSE) {
        p->status |= ST_CMDTIMEOUT;
    } else {
        /* A long response's RESPCMD is the reserved 111111 (§3.3.6); its
         * last word lacks bit 0, the end bit. */
        p->respcmd = got == SD_RESPONSE_136 ? 0x3f : index;
        memcpy(p->resp, r, sizeof(p->resp));
        if (got == SD_RESPONSE_136)
            p->resp[3] &= ~1u;
        p->status |= ST_CMDRESPEND;
    }
    if (dir != SD_DATA_NONE) {
        stop_data(p);
        p->dir = dir;
        maybe_start(p);
    }
}

static uint32_t fifo_read(pl181 *p)
{
    if (!p->running || p->dir != SD_DATA_READ || p->taken >= p->moved)
        return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4 && p->taken < p->moved; i++)
        v |= (uint32_t)p->buf[p->taken++] << (8 * i);
    return v;
}

static void fifo_write(pl181 *p, uint32_t v)
{
    if (!p->running || p->dir != SD_DATA_WRITE || p->moved >= p->total)
        return;
    for (int i = 0; i < 4 && p->moved < p->total; i++)
        p->buf[p->moved++] = (uint8_t)(v >> (8 * i));
    if (p->moved < p->total)
        return;
    uint64_t done_ns = sd_card_write(p->card, p->buf, p->total);
    if (done_ns == UINT64_MAX)
        p->status |= ST_DATATIMEOUT;
    else
        vt_schedule(p->t, &p->busy_end, done_ns);
}

uint32_t pl181_read(void *opaque, uint32_t off, int size_log2)
{
    pl181 *p = opaque;
    (void)size_log2;
    vt_stall(p->t, PL181_ACCESS_NS);
    uint32_t v = 0;
    if (off >= 0xfe0 && off < 0x1000)
        return pl181_id[(off - 0xfe0) >> 2];
    if (off >= MCI_FIFO && off < MCI_FIFO_END) {
        v = fifo_read(p);
        update(p);
        return v;
    }
    switch (off) {
    case MCI_POWER: return p->power;
    case MCI_CLOCK: return p->clock;
    case MCI_ARGUMENT: return p->arg;
    case MCI_COMMAND: return p->cmd;
    case MCI_RESPCMD: return p->respcmd;
    case MCI_RESP0: case MCI_RESP0 + 4: case MCI_RESP0 + 8: case MCI_RESP0 + 12:
        return p->resp[(off - MCI_RESP0) / 4];
    case MCI_DATATIMER: return p->datatimer;
    case MCI_DATALENGTH: return p->datalength;
    case MCI_DATACTRL: return p->datactrl;
    case MCI_DATACNT: return p->running ? p->total - p->moved : 0;
    case MCI_STATUS: return status_now(p);
    case MCI_MASK0: return p->mask[0];
    case MCI_MASK1: return p->mask[1];
    case MCI_SELECT: return p->select;
    case MCI_FIFOCNT:
        return p->running ? (p->total - p->moved + 3) / 4 : 0;
    default: return 0;
    }
}

void pl181_write(void *opaque, uint32_t off, uint32_t val, int size_log2)
{
    pl181 *p = opaque;
    (void)size_log2;
    vt_stall(p->t, PL181_ACCESS_NS);
    if (off >= MCI_FIFO && off < MCI_FIFO_END) {
        fifo_write(p, val);
        update(p);
        return;
    }
    switch (off) {
    case MCI_POWER: p->power = val & 0xff; break;
    case MCI_CLOCK: p->clock = val & 0xfff; break;
    case MCI_ARGUMENT: p->arg = val; break;
    case MCI_COMMAND:
        p->cmd = val & 0x7ff;
        if (val & CMD_ENABLE)
            command(p);
        break;
    case MCI_DATATIMER: p->datatimer = val; break;
    case MCI_DATALENGTH: p->datalength = val & 0xffff; break;
    case MCI_DATACTRL:
        p->datactrl = val & 0xff;
        if (val & DCTRL_ENABLE) {
            maybe_start(p);
        } else {
            stop_data(p);
            p->dir = SD_DATA_NONE;
        }
        break;
    case MCI_CLEAR: p->status &= ~(val & ST_STATIC); break;
    case MCI_MASK0: p->mask[0] = val & 0x3fffff; break;
    case MCI_MASK1: p->mask[1] = val & 0x3fffff; break;
    case MCI_SELECT: p->select = val & 0xf; break;
    default: break;
    }
    update(p);
}

pl181 *pl181_new(vt_engine *t, irq_line irq_cmd, irq_line irq_pio,
                 sd_card *card)
{
    pl181 *p = pl_xcalloc(1, sizeof(*p));
    p->t = t;
    p->irq[0] = irq_cmd;
    p->irq[1] = irq_pio;
    p->card = card;
    vt_event_init(&p->arrive, arrive, p);
    vt_event_init(&p->busy_end, busy_end, p);
    return p;
}

void pl181_free(pl181 *p)
{
    if (!p)
        return;
    stop_data(p);
    sd_card_free(p->card);
    free(p);
}

void pl181_register(pl181 *p, phys_map *m, uint32_t addr)
{
    phys_register_device(m, addr, PL181_SIZE, p, pl181_read, pl181_write);
}

/* ---- snapshots ---- */

void pl181_save(const pl181 *p, snap_w *w)
{
    const uint32_t regs[] = { p->power, p->clock, p->arg, p->cmd, p->respcmd,
                              p->resp[0], p->resp[1], p->resp[2], p->resp[3],
                              p->datatimer, p->datalength, p->datactrl,
                              p->status, p->mask[0], p->mask[1], p->select,
                              p->dir, p->running, p->total, p->moved,
                              p->taken, p->block_bytes };
    for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
        snap_put_u32(w, regs[i]);
    snap_put_u64(w, p->block_ns);
    snap_put_bytes(w, p->buf, p->total);
    vt_event_save(&p->arrive, w);
    vt_event_save(&p->busy_end, w);
    snap_put_u32(w, p->card != NULL);
    if (p->card)
        sd_card_save(p->card, w);
}

int pl181_load(pl181 *p, snap_r *r)
{
    uint32_t *regs[] = { &p->power, &p->clock, &p->arg, &p->cmd, &p->respcmd,
                         &p->resp[0], &p->resp[1], &p->resp[2], &p->resp[3],
                         &p->datatimer, &p->datalength, &p->datactrl,
                         &p->status, &p->mask[0], &p->mask[1], &p->select };
    for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
        *regs[i] = snap_get_u32(r);
    p->dir = snap_get_u32_max(r, SD_DATA_WRITE, "SD data direction");
    p->running = snap_get_u32_max(r, 1, "SD data phase state");
    p->total = snap_get_u32_max(r, SD_MAX_XFER_BYTES, "SD transfer length");
    p->moved = snap_get_u32_max(r, p->total, "SD bytes moved");
    p->taken = snap_get_u32_max(r, p->moved, "SD bytes taken");
    p->block_bytes = snap_get_u32_max(r, 1u << 15, "SD block size");
    p->block_ns = snap_get_u64(r);
    if (snap_r_failed(r))
        return -1;
    snap_get_bytes(r, p->buf, p->total);
    uint32_t has_card;
    if (vt_event_load(p->t, &p->arrive, r) < 0 ||
        vt_event_load(p->t, &p->busy_end, r) < 0)
        return -1;
    has_card = snap_get_u32_max(r, 1, "SD card flag");
    if (snap_r_failed(r))
        return -1;
    if (has_card != (p->card != NULL))
        return snap_r_fail(r, "saved %s an SD card; this run has %s (give the "
                           "same --disk)", has_card ? "with" : "without",
                           p->card ? "one" : "none");
    if (p->card && sd_card_load(p->card, r) < 0)
        return -1;
    update(p);
    return 0;
}
