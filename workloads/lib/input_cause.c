/* See include/panlab/input_cause.h. */
#include "panlab/input_cause.h"

static _Thread_local uint64_t cause;

uint64_t pl_input_cause_get(void)
{
	return cause;
}

void pl_input_cause_set(uint64_t c)
{
	cause = c;
}
