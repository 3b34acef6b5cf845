/* An SDHC memory card (SD Physical Layer Simplified Specification 3.01),
 * backed by a host image file, with modelled timing on the engine's clock:
 *   - a read takes an access latency, then its blocks follow at the read
 *     bandwidth;
 *   - a write lands in the card's write-back cache after a short latency;
 *     the cache drains to flash at the write bandwidth, and a write that
 *     finds the cache full waits for room.
 * It answers the commands Linux's mmc core sends to an SD memory card over
 * a 1-bit bus (identification, CSD/CID/SCR/SSR, CMD6 query, single and
 * multiple block reads and writes, CMD12, CMD13); SDIO and MMC commands get
 * no response, as from a real SD card. The host controller (pl181.c) moves
 * the data words and decides when they cross the bus.
 *
 * Ownership: sd_card_new() allocates, sd_card_free() frees; the file
 * descriptor stays the caller's. */
#ifndef PANLAB_DEV_SDCARD_H
#define PANLAB_DEV_SDCARD_H

#include <stdint.h>
#include "../time.h"
#include "../snapio.h"

typedef struct blk_timing {
    uint64_t bus_bytes_per_s;   /* data on the card's bus, either way */
    uint64_t read_latency_ns;
    uint64_t read_bytes_per_s;  /* flash reads; the bus may be slower */
    uint64_t write_latency_ns;
    uint64_t write_bytes_per_s; /* flash programming: the cache drains */
    uint64_t cache_bytes;
} blk_timing;

/* A Speed Class 4 SDHC card on a 1-bit bus at 25 MHz: 3.125 MB/s on the
 * bus, 4 MB/s sustained programming (sdcard.c cites both). */
void blk_timing_sd(blk_timing *t);

/* SDHC capacity is counted in 512 KiB units (CSD version 2.0 C_SIZE). */
#define SD_CAPACITY_UNIT_BYTES (512u * 1024u)
#define SD_BLOCK_BYTES 512u
/* The largest data phase one command starts (a PL181 transfer is at most
 * 65535 bytes; SCR, SSR and CMD6 status are 8 or 64). */
#define SD_MAX_XFER_BYTES 65536u

typedef struct sd_card sd_card;

/* size_bytes must be a non-zero multiple of SD_CAPACITY_UNIT_BYTES. */
sd_card *sd_card_new(vt_engine *t, int fd, uint64_t size_bytes,
                     const blk_timing *timing);
void sd_card_free(sd_card *c);

enum sd_response { SD_NO_RESPONSE, SD_RESPONSE_48, SD_RESPONSE_136 };
enum sd_data_dir { SD_DATA_NONE, SD_DATA_READ, SD_DATA_WRITE };

/* Executes command `index` with `arg`. resp[0] holds the 48-bit
 * response's bits 39:8 (the card status or register), or for 136-bit
 * responses resp[0..3] hold register bits 127:96 .. 31:0. *dir says
 * whether a data phase follows. */
enum sd_response sd_card_command(sd_card *c, uint32_t index, uint32_t arg,
                                 uint32_t resp[4], enum sd_data_dir *dir);

/* The read data phase of the last command: fills buf with len bytes and
 * sets when the first block is on the bus and the time per further block
 * (block_bytes long). Returns 0, or -1 when the range is outside the card. */
int sd_card_read(sd_card *c, uint8_t *buf, uint32_t len, uint32_t block_bytes,
                 uint64_t *first_ns, uint64_t *per_block_ns);
/* The write data phase of the last command: stores len bytes and returns
 * when the card is done with them (its busy signal ends), or UINT64_MAX
 * when the range is outside the card or the file cannot be written. */
uint64_t sd_card_write(sd_card *c, const uint8_t *buf, uint32_t len);
/* Bus time, in ns, of `bytes` of write data (blk_timing.bus_bytes_per_s). */
uint64_t sd_card_write_bus_ns(const sd_card *c, uint32_t bytes);

/* Snapshots: card state and timing, and the CRC-32 of the whole image, so
 * a restore on a different card is refused (the contents are not in the
 * snapshot). Load returns 0, or -1 with the error in r. */
void sd_card_save(const sd_card *c, snap_w *w);
int sd_card_load(sd_card *c, snap_r *r);

#endif
