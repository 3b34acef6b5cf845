/* SPDX-License-Identifier: MIT */
/*
 * The guest<->phone ABI: what the panlab guest and the machine it runs on (the phone, emu/, or
 * qemu through scripts/run-qemu.sh) agree on besides the devices themselves.
 *
 * - The virtio-console ports the guest opens by name: the collector's trace, the session's input
 *   handshake (and the guest injector's ground truth), the compositor's display ground truth, and
 *   the phone's experiment configuration (emu/handshake.c).
 * - The handshake lines on PL_PORT_INPUT when the host injects the input (panlab.injector=host):
 *   the session writes "ready <t_ns>" once the app is ready, and "resume <t_ns>" when it has done
 *   a control action of the script (wait, launch, switch); t_ns is guest CLOCK_MONOTONIC.
 * - The script clock: after a control action at script time at_ns resumed at resume_ns, the
 *   script's later times count from pl_script_base_ns(resume_ns, at_ns), on every backend.
 * - The console line the guest's /init ends with, PL_RESULT_PREFIX then "OK" or "FAIL why".
 * - The network: the guest's address and gateway, and the content peer's address, which the
 *   phone serves (emu/host/slirp_net.c) and /init exports to the apps as PANLAB_CONTENT_HOST.
 *
 * The shell reads these from build/guest_abi.sh, which `make build` generates from this header
 * (scripts/guest-abi-sh.c) and the initramfs carries as /etc/panlab/guest_abi.sh.
 *
 * Static inline, no allocation: the guest (armel) and the emulator agree by construction.
 */
#ifndef PANLAB_GUEST_ABI_H
#define PANLAB_GUEST_ABI_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PL_PORT_TRACE "panlab.trace"
#define PL_PORT_INPUT "panlab.input"
#define PL_PORT_DISPLAY "panlab.display"
#define PL_PORT_CONFIG "panlab.config"

#define PL_RESULT_PREFIX "PANLAB-RESULT: "

#define PL_GUEST_ADDR "10.0.2.15"
#define PL_GUEST_GATEWAY "10.0.2.2"
#define PL_CONTENT_HOST "10.0.2.100"

enum pl_handshake {
	PL_HANDSHAKE_NONE = 0, /* not a handshake line */
	PL_HANDSHAKE_READY,    /* "ready <t_ns>" */
	PL_HANDSHAKE_RESUME,   /* "resume <t_ns>" */
};

/* Room for a handshake line: the longer word, a space, 20 digits, the newline, the NUL. */
#define PL_HANDSHAKE_LINE_BYTES 32

/* Formats the handshake line kind (READY or RESUME) for t_ns, newline included, into buf; returns
 * its length, or -1 if it does not fit. */
static inline int pl_handshake_format(char *buf, size_t size, enum pl_handshake kind, uint64_t t_ns)
{
	int n = snprintf(buf, size, "%s %" PRIu64 "\n",
			 kind == PL_HANDSHAKE_READY ? "ready" : "resume", t_ns);
	return n >= 0 && (size_t)n < size ? n : -1;
}

/* Parses one line, without its newline: the handshake it is, with *t_ns set, or
 * PL_HANDSHAKE_NONE for anything else (nothing may follow the number). */
static inline enum pl_handshake pl_handshake_parse(const char *line, uint64_t *t_ns)
{
	char tail;
	if (sscanf(line, "ready %" SCNu64 "%c", t_ns, &tail) == 1)
		return PL_HANDSHAKE_READY;
	if (sscanf(line, "resume %" SCNu64 "%c", t_ns, &tail) == 1)
		return PL_HANDSHAKE_RESUME;
	return PL_HANDSHAKE_NONE;
}

/* The script clock: once a control action at script time at_ns is done at resume_ns, script time
 * t plays at base + t, where base is this. */
static inline uint64_t pl_script_base_ns(uint64_t resume_ns, uint64_t at_ns)
{
	return resume_ns - at_ns;
}

#endif /* PANLAB_GUEST_ABI_H */
