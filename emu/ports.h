/* The virtio-console ports of a run: which exist (the guest's own, and
 * those --port adds), where each one's output goes, and who else listens
 * to it (the replay engine, the configuration handshake). Output on any
 * port counts as the guest's progress.
 *
 * Ownership: both structs are the caller's; files are opened by
 * port_files_open and closed by port_files_close. */
#ifndef PANLAB_EMU_PORTS_H
#define PANLAB_EMU_PORTS_H

#include <stdio.h>
#include "machine.h"
#include "console_watch.h"
#include "panlab/error.h"

#define PORT_NAME_MAX 63

/* Port names and output files, as the options give them. */
typedef struct port_list {
    int n;
    char name[MACH_MAX_PORTS][PORT_NAME_MAX + 1];
    const char *path[MACH_MAX_PORTS];   /* NULL: the output is not kept */
} port_list;

/* The ports the panlab guest looks for (guest.h). */
void port_list_default(port_list *l);
/* Sends port `name`'s output to path (NULL: only adds the port). Returns
 * 0, or -1 with err set if the name is too long or no port is left. */
int port_list_set(port_list *l, const char *name, size_t name_len,
                  const char *path, struct pl_error *err);

typedef struct port_file {
    FILE *f;
    const char *path;
    console_watch *con;
    byte_sink tap;              /* also gets the bytes, if put is set */
} port_file;

typedef struct port_files {
    int n;
    port_file file[MACH_MAX_PORTS];
} port_files;

/* Opens the output files and fills cfg's ports. Returns 0, or -1 with err
 * set. */
int port_files_open(port_files *p, const port_list *l, console_watch *con,
                    machine_config *cfg, struct pl_error *err);
/* Also sends port `name`'s output to tap (before the machine exists). */
void port_files_tap(port_files *p, const port_list *l, const char *name,
                    byte_sink tap);
void port_files_flush(port_files *p);
/* Returns 0, or -1 with err set if a file could not be written. */
int port_files_close(port_files *p, struct pl_error *err);

#endif
