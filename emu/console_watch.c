/* The guest console and the progress it shows; see console_watch.h. */
#include <string.h>
#include "console_watch.h"
#include "guest.h"
#include "host/host_clock.h"

void console_watch_progress(console_watch *c, uint64_t ns)
{
    c->last_output_ns = ns;
}

void console_watch_put(void *opaque, const uint8_t *buf, size_t n)
{
    console_watch *c = opaque;
    fwrite(buf, 1, n, c->f);
    c->last_output_ns = vt_now_ns(c->vt);
    c->spoke |= n > 0;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != '\n' && c->len < sizeof(c->line) - 1) {
            if (buf[i] != '\r')
                c->line[c->len++] = (char)buf[i];
            continue;
        }
        c->line[c->len] = 0;
        if (c->len) {
            memcpy(c->last, c->line, c->len + 1);
            c->last_ns = c->last_output_ns;
        }
        if (!c->init_ns && (strstr(c->line, GUEST_CONSOLE_INIT) ||
                            !strncmp(c->line, GUEST_CONSOLE_INIT_SAYS,
                                     strlen(GUEST_CONSOLE_INIT_SAYS)))) {
            c->init_ns = c->last_output_ns;
            c->init_host_s = host_now_s();
        }
        if (strstr(c->line, GUEST_CONSOLE_INITRD_FAILED))
            c->initrd_failed = 1;
        if (!c->panic[0] && strstr(c->line, GUEST_CONSOLE_PANIC)) {
            snprintf(c->panic, sizeof(c->panic), "%s", c->line);
            c->panic_ns = c->last_output_ns;
        }
        c->len = 0;
    }
}
