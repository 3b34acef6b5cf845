/* virtio-console ports of a run; see ports.h. */
#include <errno.h>
#include <string.h>
#include "ports.h"
#include "guest.h"
#include "panlab/error.h"

void port_list_default(port_list *l)
{
    static const char *const guest_ports[] = {
        GUEST_PORT_TRACE, GUEST_PORT_INPUT, GUEST_PORT_DISPLAY,
    };
    memset(l, 0, sizeof(*l));
    for (size_t i = 0; i < sizeof(guest_ports) / sizeof(guest_ports[0]); i++)
        strcpy(l->name[l->n++], guest_ports[i]);
}

int port_list_set(port_list *l, const char *name, size_t name_len,
                  const char *path, struct pl_error *err)
{
    if (name_len > PORT_NAME_MAX) {
        pl_error_set(err, "port name '%.*s' is longer than %d bytes",
                 (int)name_len, name, PORT_NAME_MAX);
        return -1;
    }
    int k = 0;
    while (k < l->n && (strlen(l->name[k]) != name_len ||
                        strncmp(l->name[k], name, name_len)))
        k++;
    if (k == MACH_MAX_PORTS) {
        pl_error_set(err, "no room for port '%.*s' (at most %d ports)",
                 (int)name_len, name, MACH_MAX_PORTS);
        return -1;
    }
    if (k == l->n) {
        memcpy(l->name[k], name, name_len);
        l->name[k][name_len] = 0;
        l->n++;
    }
    if (path)
        l->path[k] = path;
    return 0;
}

static void port_put(void *opaque, const uint8_t *buf, size_t n)
{
    port_file *p = opaque;
    if (p->f)
        fwrite(buf, 1, n, p->f);
    if (p->tap.put)
        p->tap.put(p->tap.opaque, buf, n);
    console_watch_progress(p->con, vt_now_ns(p->con->vt));
}

int port_files_open(port_files *p, const port_list *l, console_watch *con,
                    machine_config *cfg, struct pl_error *err)
{
    p->n = l->n;
    cfg->nports = l->n;
    for (int i = 0; i < l->n; i++) {
        p->file[i] = (port_file){ .path = l->path[i], .con = con };
        if (l->path[i] && !(p->file[i].f = fopen(l->path[i], "wb"))) {
            pl_error_set(err, "%s: cannot create: %s", l->path[i],
                     strerror(errno));
            return -1;
        }
        cfg->port_name[i] = l->name[i];
        cfg->port_out[i] = (byte_sink){ port_put, &p->file[i] };
    }
    return 0;
}

void port_files_tap(port_files *p, const port_list *l, const char *name,
                    byte_sink tap)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->name[i], name))
            p->file[i].tap = tap;
}

void port_files_flush(port_files *p)
{
    for (int i = 0; i < p->n; i++)
        if (p->file[i].f)
            fflush(p->file[i].f);
}

int port_files_close(port_files *p, struct pl_error *err)
{
    for (int i = 0; i < p->n; i++)
        if (p->file[i].f && fclose(p->file[i].f) != 0) {
            pl_error_set(err, "%s: cannot write: %s", p->file[i].path,
                     strerror(errno));
            return -1;
        }
    return 0;
}
