/* Thumb (T16) decoder and handlers: placeholder until Thumb-1 lands. */
#include "arm_int.h"

void thumb_decode(arm_insn *d, uint32_t raw)
{
    d->raw = raw;
    d->fn = exec_undef;
}
