/* virtio-console ports of a run; see ports.h. */
#include <errno.h>
#include <string.h>
#include "ports.h"
#include "guest.h"
#include "panlab/guest_abi.h"
#include "panlab/error.h"

void port_list_default(port_list *l)
{
    static const char *const guest_ports[] = {
        PL_PORT_TRACE,
        PL_PORT_INPUT,
        PL_PORT_DISPLAY,
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

/* The first failed write: one line now; the bytes not known to be written
 * are lost, and so is everything after. */
static void port_failed(port_file *p)
{
    p->write_errno = errno ? errno : EIO;
    p->lost_bytes = p->handed_bytes - p->flushed_bytes;
    fprintf(stderr, "panlab-phone: %s@%llu: cannot write: %s; the rest of the "
            "port's output is counted as lost\n", p->path,
            (unsigned long long)p->flushed_bytes, strerror(p->write_errno));
}

static void port_put(void *opaque, const uint8_t *buf, size_t n)
{
    port_file *p = opaque;
    if (p->f && p->write_errno) {
        p->lost_bytes += n;
    } else if (p->f) {
        p->handed_bytes += n;
        errno = 0;
        if (fwrite(buf, 1, n, p->f) != n)
            port_failed(p);
    }
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
    for (int i = 0; i < p->n; i++) {
        port_file *f = &p->file[i];
        if (!f->f || f->write_errno)
            continue;
        errno = 0;
        if (fflush(f->f) != 0)
            port_failed(f);
        else
            f->flushed_bytes = f->handed_bytes;
    }
}

int port_files_close(port_files *p, struct pl_error *err)
{
    port_files_flush(p);
    int rc = 0;
    for (int i = 0; i < p->n; i++) {
        port_file *f = &p->file[i];
        if (!f->f)
            continue;
        errno = 0;
        if (fclose(f->f) != 0 && !f->write_errno)
            port_failed(f);
        f->f = NULL;
        if (f->write_errno && !rc) {
            pl_error_file(err, f->path, "cannot write: %s; %llu bytes of the port's "
                          "output were lost", strerror(f->write_errno),
                          (unsigned long long)f->lost_bytes);
            rc = -1;
        }
    }
    return rc;
}
