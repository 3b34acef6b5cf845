/* The phone's model constants that section 6's findings cite, in the
 * analyzer's model-constants format (analyzer/include/panlab/findings.h:
 * group, name, value, source, tab-separated, one a line). */
#ifndef PANLAB_MODEL_CONSTANTS_H
#define PANLAB_MODEL_CONSTANTS_H

#include <stdio.h>

/* Writes the link profiles and the SD card's timing, from the values the
 * phone runs with, to f. */
void model_constants_print(FILE *f);

#endif
