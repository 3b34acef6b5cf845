/* SD memory card; command and register layouts from the SD Physical Layer
 * Simplified Specification 3.01 (§4.7.4 commands, §4.9 responses, §5.1
 * OCR, §5.2 CID, §5.3.3 CSD 2.0, §5.6 SCR, §4.10.2 SD status, §4.3.10
 * CMD6). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "sdcard.h"
#include "panlab/error.h"

enum card_state { ST_IDLE, ST_READY, ST_IDENT, ST_STBY, ST_TRAN };

/* R1 card status bits (§4.10.1). */
#define R1_READY_FOR_DATA (1u << 8)
#define R1_APP_CMD (1u << 5)
#define R1_ADDRESS_ERROR (1u << 30)

#define OCR_BUSY_DONE (1u << 31)
#define OCR_CCS (1u << 30)              /* SDHC: block addressing */
#define OCR_VDD_27_36 0x00ff8000u
#define RCA 0x0001u

/* Data that a register read (SCR, SD status, CMD6 status) returns. */
enum data_src { SRC_NONE, SRC_BLOCKS, SRC_SCR, SRC_SSR, SRC_SWITCH };

struct sd_card {
    vt_engine *t;
    int fd;
    uint64_t size;
    blk_timing tm;
    uint64_t drained_ns;        /* the write-back cache is empty from here */
    uint32_t state;
    uint32_t app;               /* the previous command was CMD55 */
    uint32_t src;               /* enum data_src of the pending data phase */
    uint64_t offset;            /* byte address of a block transfer */
    uint8_t cid[16], csd[16];
};

void blk_timing_sd(blk_timing *t)
{
    /* Default Speed: a 25 MHz clock at most (SD Physical Layer Simplified
     * Specification 3.01, 6.6 "Bus Timing (Default)"; the device tree's
     * max-frequency), on the 1-bit bus the phone wires the card with (no
     * bus-width in its mmci node): 25 Mbit/s, 3.125 MB/s both ways. This
     * caps what the card sustains, as a 2012 phone's card did (~3 MB/s). */
    t->bus_bytes_per_s = 3125000;
    t->read_latency_ns = 200000;
    t->read_bytes_per_s = 20000000;
    t->write_latency_ns = 100000;
    /* Speed Class 4's guaranteed sustained sequential write, 4 MB/s (SD
     * 3.01, 4.13 "Speed Class Specification"): above the bus rate, so the
     * bus, not the flash, sets a long write's pace. */
    t->write_bytes_per_s = 4000000;
    t->cache_bytes = 4u << 20;
}

static uint64_t xfer_ns(uint64_t bytes, uint64_t per_s)
{
    return bytes * VT_NS_PER_S / per_s;
}

/* Sets bits [hi:lo] (hi - lo < 32) of a big-endian 128-bit register. */
static void put_bits(uint8_t reg[16], int hi, int lo, uint32_t v)
{
    for (int b = lo; b <= hi; b++) {
        int byte = 15 - b / 8;
        if ((v >> (b - lo)) & 1)
            reg[byte] |= (uint8_t)(1u << (b % 8));
    }
}

static void make_registers(sd_card *c)
{
    /* CID (§5.2): manufacturer 0, OEM "PL", product "PANSD", rev 1.0,
     * serial 1, made January 2020. */
    put_bits(c->cid, 119, 104, ('P' << 8) | 'L');
    put_bits(c->cid, 103, 72, ('P' << 24) | ('A' << 16) | ('N' << 8) | 'S');
    put_bits(c->cid, 71, 64, 'D');
    put_bits(c->cid, 63, 56, 0x10);
    put_bits(c->cid, 55, 24, 1);
    put_bits(c->cid, 19, 8, (20 << 4) | 1);
    put_bits(c->cid, 0, 0, 1);
    /* CSD 2.0 (§5.3.3). Command classes 0, 2, 4, 8, 10: basic, block
     * read, block write, application specific, switch. No erase (class 5)
     * and no lock (class 7), so the host sends neither. */
    put_bits(c->csd, 127, 126, 1);
    put_bits(c->csd, 119, 112, 0x0e);               /* TAAC 1 ms */
    put_bits(c->csd, 103, 96, 0x32);                /* 25 MHz */
    put_bits(c->csd, 95, 84, 0x515);
    put_bits(c->csd, 83, 80, 9);                    /* 512-byte blocks */
    put_bits(c->csd, 69, 48, (uint32_t)(c->size / SD_CAPACITY_UNIT_BYTES - 1));
    put_bits(c->csd, 46, 46, 1);
    put_bits(c->csd, 45, 39, 0x7f);
    put_bits(c->csd, 28, 26, 2);
    put_bits(c->csd, 25, 22, 9);
    put_bits(c->csd, 0, 0, 1);
}

sd_card *sd_card_new(vt_engine *t, int fd, uint64_t size_bytes,
                     const blk_timing *timing)
{
    sd_card *c = pl_xcalloc(1, sizeof(*c));
    c->t = t;
    c->fd = fd;
    c->size = size_bytes;
    c->tm = *timing;
    make_registers(c);
    return c;
}

void sd_card_free(sd_card *c)
{
    free(c);
}

static void reg_response(const uint8_t reg[16], uint32_t resp[4])
{
    for (int i = 0; i < 4; i++)
        resp[i] = (uint32_t)reg[4 * i] << 24 | (uint32_t)reg[4 * i + 1] << 16 |
                  (uint32_t)reg[4 * i + 2] << 8 | reg[4 * i + 3];
}

static uint32_t r1(const sd_card *c, int app)
{
    return c->state << 9 | R1_READY_FOR_DATA | (app ? R1_APP_CMD : 0);
}

/* Application commands (after CMD55), §4.7.4 table 4-32. */
static enum sd_response app_command(sd_card *c, uint32_t index,
                                    uint32_t resp[4], enum sd_data_dir *dir)
{
    switch (index) {
    case 41:                    /* SD_SEND_OP_COND: R3, never busy */
        if (c->state == ST_IDLE)
            c->state = ST_READY;
        resp[0] = OCR_BUSY_DONE | OCR_CCS | OCR_VDD_27_36;
        return SD_RESPONSE_48;
    case 13:                    /* SD_STATUS */
    case 51:                    /* SEND_SCR */
        c->src = index == 13 ? SRC_SSR : SRC_SCR;
        *dir = SD_DATA_READ;
        resp[0] = r1(c, 1);
        return SD_RESPONSE_48;
    case 6:                     /* SET_BUS_WIDTH */
    case 22:                    /* SEND_NUM_WR_BLOCKS is not kept: R1 only */
    case 23:                    /* SET_WR_BLK_ERASE_COUNT */
    case 42:                    /* SET_CLR_CARD_DETECT */
        resp[0] = r1(c, 1);
        return SD_RESPONSE_48;
    default:
        return SD_NO_RESPONSE;
    }
}

enum sd_response sd_card_command(sd_card *c, uint32_t index, uint32_t arg,
                                 uint32_t resp[4], enum sd_data_dir *dir)
{
    int app = c->app;
    c->app = 0;
    *dir = SD_DATA_NONE;
    memset(resp, 0, 4 * sizeof(resp[0]));
    if (app) {
        enum sd_response r = app_command(c, index, resp, dir);
        if (r != SD_NO_RESPONSE)
            return r;
    }
    switch (index) {
    case 0:                     /* GO_IDLE_STATE */
        c->state = ST_IDLE;
        return SD_NO_RESPONSE;
    case 2:                     /* ALL_SEND_CID */
        c->state = ST_IDENT;
        reg_response(c->cid, resp);
        return SD_RESPONSE_136;
    case 3:                     /* SEND_RELATIVE_ADDR: R6 */
        c->state = ST_STBY;
        resp[0] = RCA << 16 | ST_STBY << 9 | R1_READY_FOR_DATA;
        return SD_RESPONSE_48;
    case 6:                     /* SWITCH_FUNC: only the status query */
        c->src = SRC_SWITCH;
        *dir = SD_DATA_READ;
        resp[0] = r1(c, 0);
        return SD_RESPONSE_48;
    case 7:                     /* SELECT/DESELECT_CARD: others stay quiet */
        if (arg >> 16 != RCA) {
            c->state = c->state == ST_TRAN ? ST_STBY : c->state;
            return SD_NO_RESPONSE;
        }
        resp[0] = r1(c, 0);
        c->state = ST_TRAN;
        return SD_RESPONSE_48;
    case 8:                     /* SEND_IF_COND: R7 echoes VHS and pattern */
        resp[0] = arg & 0xfffu;
        return SD_RESPONSE_48;
    case 9:                     /* SEND_CSD */
    case 10:                    /* SEND_CID */
        if (arg >> 16 != RCA)
            return SD_NO_RESPONSE;
        reg_response(index == 9 ? c->csd : c->cid, resp);
        return SD_RESPONSE_136;
    case 12:                    /* STOP_TRANSMISSION */
    case 13:                    /* SEND_STATUS */
    case 16:                    /* SET_BLOCKLEN: SDHC blocks are 512 bytes */
        resp[0] = r1(c, 0);
        return SD_RESPONSE_48;
    case 17: case 18:           /* READ_SINGLE/MULTIPLE_BLOCK */
    case 24: case 25:           /* WRITE_BLOCK, WRITE_MULTIPLE_BLOCK */
        c->src = SRC_BLOCKS;
        c->offset = (uint64_t)arg * SD_BLOCK_BYTES;
        *dir = index < 24 ? SD_DATA_READ : SD_DATA_WRITE;
        resp[0] = r1(c, 0) |
                  (c->offset >= c->size ? R1_ADDRESS_ERROR : 0);
        return SD_RESPONSE_48;
    case 55:                    /* APP_CMD */
        c->app = 1;
        resp[0] = r1(c, 1);
        return SD_RESPONSE_48;
    default:                    /* SDIO (5, 52, 53), MMC (1) and others */
        return SD_NO_RESPONSE;
    }
}

int sd_card_read(sd_card *c, uint8_t *buf, uint32_t len, uint32_t block_bytes,
                 uint64_t *first_ns, uint64_t *per_block_ns)
{
    uint64_t now = vt_now_ns(c->t);
    uint64_t latency = 0;
    memset(buf, 0, len);
    switch (c->src) {
    case SRC_BLOCKS:
        if (c->offset > c->size || len > c->size - c->offset ||
            pread(c->fd, buf, len, (off_t)c->offset) != (ssize_t)len)
            return -1;
        latency = c->tm.read_latency_ns;
        break;
    case SRC_SCR:               /* structure 1.0, SD 2.00, 1- and 4-bit */
        if (len > 0)
            buf[0] = 0x02;
        if (len > 1)
            buf[1] = 0x05;
        break;
    case SRC_SWITCH:            /* group 1 supports only the default */
        if (len > 13)
            buf[13] = 0x01;
        break;
    case SRC_SSR:               /* all zero: no AU size, no speed class */
        break;
    default:
        return -1;
    }
    /* Each block leaves at the slower of the flash and the bus. */
    *per_block_ns = xfer_ns(block_bytes, c->tm.read_bytes_per_s < c->tm.bus_bytes_per_s
                                             ? c->tm.read_bytes_per_s
                                             : c->tm.bus_bytes_per_s);
    *first_ns = now + latency + *per_block_ns;
    return 0;
}

uint64_t sd_card_write(sd_card *c, const uint8_t *buf, uint32_t len)
{
    uint64_t now = vt_now_ns(c->t);
    if (c->src != SRC_BLOCKS || c->offset > c->size ||
        len > c->size - c->offset ||
        pwrite(c->fd, buf, len, (off_t)c->offset) != (ssize_t)len)
        return UINT64_MAX;
    /* Wait until the cache has room for this write, then queue it. */
    if (c->drained_ns < now)
        c->drained_ns = now;
    uint64_t full_ns = xfer_ns(c->tm.cache_bytes, c->tm.write_bytes_per_s);
    uint64_t start = now;
    if (c->drained_ns > now + full_ns)
        start = c->drained_ns - full_ns;
    c->drained_ns += xfer_ns(len, c->tm.write_bytes_per_s);
    return start + c->tm.write_latency_ns;
}

uint64_t sd_card_write_bus_ns(const sd_card *c, uint32_t bytes)
{
    return xfer_ns(bytes, c->tm.bus_bytes_per_s);
}

/* ---- snapshots ---- */

/* The card's contents as the CRC-32 of (offset, bytes) of each 4 KiB
 * block that is not all zero. Holes are skipped unread (SEEK_DATA), so a
 * 128 MiB card that holds a fresh file system costs little to check, and
 * a sparse copy and a full copy of one image give the same value. */
#define CARD_BLOCK 4096u

static uint32_t image_crc(const sd_card *c)
{
    static const uint8_t zero[CARD_BLOCK];
    const size_t buf_bytes = 1u << 20;
    uint8_t *buf = malloc(buf_bytes);
    uint32_t crc = (uint32_t)crc32(0, NULL, 0);
    if (!buf)
        return crc ^ 0xffffffffu;       /* cannot check: never matches */
    off_t size = (off_t)c->size;
    for (off_t pos = 0; pos < size;) {
        off_t data = lseek(c->fd, pos, SEEK_DATA), end = size;
        if (data < 0 && errno == ENXIO)
            break;                      /* only holes from here */
        if (data < 0)
            data = pos;                 /* no SEEK_DATA: read it all */
        else if ((end = lseek(c->fd, data, SEEK_HOLE)) < 0 || end > size)
            end = size;
        data &= ~(off_t)(CARD_BLOCK - 1);
        for (off_t off = data; off < end;) {
            size_t want = (size_t)(end - off) < buf_bytes ? (size_t)(end - off)
                                                          : buf_bytes;
            ssize_t n = pread(c->fd, buf, want, off);
            if (n <= 0) {
                free(buf);
                return crc ^ 0xffffffffu;   /* unreadable: never matches */
            }
            for (ssize_t k = 0; k < n; k += CARD_BLOCK) {
                size_t len = (size_t)(n - k) < CARD_BLOCK ? (size_t)(n - k) : CARD_BLOCK;
                if (!memcmp(buf + k, zero, len))
                    continue;
                uint8_t at[8];
                for (int i = 0; i < 8; i++)
                    at[i] = (uint8_t)((uint64_t)(off + k) >> (8 * i));
                crc = (uint32_t)crc32(crc, at, 8);
                crc = (uint32_t)crc32(crc, buf + k, (uInt)len);
            }
            off += n;
        }
        pos = end;
    }
    free(buf);
    return crc;
}

void sd_card_save(const sd_card *c, snap_w *w)
{
    snap_put_u64(w, c->size);
    snap_put_u32(w, image_crc(c));
    snap_put_u64(w, c->drained_ns);
    snap_put_u32(w, c->state);
    snap_put_u32(w, c->app);
    snap_put_u32(w, c->src);
    snap_put_u64(w, c->offset);
}

int sd_card_load(sd_card *c, snap_r *r)
{
    uint64_t size = snap_get_u64(r);
    uint32_t crc = snap_get_u32(r);
    if (snap_r_failed(r))
        return -1;
    uint32_t now = image_crc(c);
    if (size != c->size || crc != now)
        return snap_r_fail(r, "the SD card was a %llu-byte image with CRC-32 "
                           "%08x; this run's is %llu bytes, %08x (give a "
                           "fresh copy of the card it was saved with)",
                           (unsigned long long)size, crc,
                           (unsigned long long)c->size, now);
    c->drained_ns = snap_get_u64(r);
    c->state = snap_get_u32_max(r, ST_TRAN, "SD card state");
    c->app = snap_get_u32_max(r, 1, "SD APP_CMD flag");
    c->src = snap_get_u32_max(r, SRC_SWITCH, "SD data source");
    c->offset = snap_get_u64(r);
    return snap_r_failed(r) ? -1 : 0;
}
