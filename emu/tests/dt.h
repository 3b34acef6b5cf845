/* Differential-test support shared by the test tools: a minimal board
 * (RAM at the QEMU virt address, a PL011 data register that records bytes,
 * PSCI SYSTEM_OFF through HVC) that runs the same raw images on emu/ and on
 * qemu-system-arm, and the random image generator.
 *
 * Ownership: buffers returned in dt_buf are malloc'd and freed by the
 * caller with free(buf.p). */
#ifndef PANLAB_DT_H
#define PANLAB_DT_H

#include <stdint.h>
#include <stddef.h>

#define DT_RAM_BASE 0x40000000u
#define DT_RAM_BYTES (64u << 20)
#define DT_LOAD 0x40100000u         /* image load address and entry */
#define DT_UART 0x09000000u
/* Layout of a random-stream image (dt_frame.S). The init table holds
 * r0-r14, a hole, APSR, config (DT_CFG_*), TTBR0, DACR and the bits to set
 * in SCTLR. */
#define DT_INIT_OFF 0x800u
#define DT_DATA_OFF 0x1000u
#define DT_DATA_BYTES 0x2000u
#define DT_L1_OFF 0x4000u           /* 16 KiB aligned L1 table */
#define DT_L2_OFF 0x8000u
#define DT_BODY_OFF 0x9000u
#define DT_EPILOGUE_OFF 0x100u
#define DT_ENTER_OFF 0xfcu          /* the branch into the body */
#define DT_CFG_USER 2u              /* body runs in User mode, else System */
/* PMU counters 0-3 count loads, stores, PC writes and instructions from
 * the frame's start (DT_PMU_EVENTS), so the fast engine runs its counting
 * blocks; seeds without it run the others. */
#define DT_CFG_PMU 4u
#define DT_PMU_COUNTERS 4
/* Output of an image: r0-r14, CPSR, the fault log (32 bytes), then the
 * data area. */
#define DT_OUT_BYTES (96u + DT_DATA_BYTES)

typedef struct dt_buf {
    uint8_t *p;
    size_t len;
} dt_buf;

int dt_read_file(const char *path, dt_buf *out);
/* A fresh directory under parent for one tool run, so runs sharing a build
 * tree (make test by several people) never share image or output files.
 * Returns a malloc'd path; dt_remove_dir() deletes it and its files. */
char *dt_private_dir(const char *parent);
void dt_remove_dir(char *dir);
int dt_write_file(const char *path, const uint8_t *p, size_t len);

/* Runs an image on emu/ with `engine` (ARM_ENGINE_*) until PSCI
 * SYSTEM_OFF or max_insns. Returns 0 on a clean power-off, with the UART
 * bytes in *uart, the executed instruction count in *insns and, if pmu
 * is not NULL, PMU counters 0-3 at the end in pmu[0..3]. */
int dt_run_emu(const uint8_t *img, size_t len, uint64_t max_insns, int engine,
               dt_buf *uart, uint64_t *insns, uint32_t *pmu);
/* Runs the image file on qemu-system-arm; output in *uart. */
int dt_run_qemu(const char *img_path, const char *work_dir, dt_buf *uart,
                const char *extra_args);

/* Seeds whose body is Thumb (T16), with the MMU off. */
int dt_thumb_seed(uint64_t seed);
/* Builds a random-stream image from frame, seed and body length (in
 * instructions). */
void dt_gen(const dt_buf *frame, uint64_t seed, uint32_t n_insns,
            dt_buf *img);

#endif
