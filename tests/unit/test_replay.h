/* Shared pieces of the replay unit tests (tests/unit/test_replay*.c). */
#ifndef TEST_REPLAY_H
#define TEST_REPLAY_H

#include "panlab/replay.h"

/* Each adds one CUnit suite; returns a CU_ErrorCode. */
int test_replay_add_parse_suite(void);
int test_replay_add_play_suite(void);
int test_replay_add_cli_suite(void);
int test_replay_add_record_suite(void);
int test_replay_add_marker_suite(void);

/* Parses NUL-terminated text named "t.rply"; fails the test and returns NULL on error. */
struct pl_script *test_replay_parse(const char *text);

/* Writes text to a new temporary file; the caller unlinks and frees the returned path. */
char *test_replay_temp_file(const char *text);

#endif
