/* Helpers the board's CUnit tests share (test_board*.c, one program
 * each). Header-only: each test includes it once. */
#ifndef PANLAB_EMU_BOARD_TEST_H
#define PANLAB_EMU_BOARD_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include "../machine.h"
#include "panlab/error.h"

/* A machine the test's configuration must build: a failure ends the
 * test program with machine_new's error. */
static inline machine *board_machine(const machine_config *cfg)
{
    struct pl_error err;
    machine *m = machine_new(cfg, &err);
    if (!m) {
        fprintf(stderr, "machine_new: %s\n", err.msg);
        abort();
    }
    return m;
}

#endif
