/*
 * svc-content: the network workloads' content server (issue 5's network peer). It runs in the
 * guest as its own process, started by the app through pl_app_start_service like any remote
 * service, and serves TCP and UDP on 127.0.0.1:CONTENT_PORT (content_service.h): each request
 * says how many bytes to send, after what latency and at what bandwidth. Latency and pacing are
 * CLOCK_MONOTONIC sleeps in the guest, so on QEMU with icount, as on the phone, a run is
 * deterministic; nothing leaves the machine.
 *
 * One thread serves TCP connections one after another, another serves UDP; SIGTERM ends the
 * process with status 0. No logging: the kernel logger sees the socket blocking.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "content_service.h"
#include "panlab/die.h"
#include "panlab/net.h"
#include "panlab/ready.h"

static void sleep_ns(uint64_t ns)
{
	struct timespec d = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
	while (nanosleep(&d, &d) != 0 && errno == EINTR)
		;
}

/* Sends the response of req in paced pieces through send_piece; stops early if it fails. */
static void respond(const struct content_request *req, int fd,
		    int (*send_piece)(int fd, const uint8_t *p, size_t n, const void *peer),
		    const void *peer)
{
	static const uint8_t content[CONTENT_CHUNK_BYTES] = { 0x5a };
	uint64_t piece_ns = req->bytes_per_s ?
		(uint64_t)CONTENT_CHUNK_BYTES * 1000000000u / req->bytes_per_s : 0;
	sleep_ns(req->latency_ms * UINT64_C(1000000));
	for (uint32_t left = req->bytes;;) {
		size_t n = left < CONTENT_CHUNK_BYTES ? left : CONTENT_CHUNK_BYTES;
		if (send_piece(fd, content, n, peer) != 0 || n < CONTENT_CHUNK_BYTES)
			return;	/* a short piece ends a datagram response */
		left -= (uint32_t)n;
		sleep_ns(piece_ns);
	}
}

static int send_stream(int fd, const uint8_t *p, size_t n, const void *peer)
{
	(void)peer;
	return n == 0 || send(fd, p, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

static int send_datagram(int fd, const uint8_t *p, size_t n, const void *peer)
{
	return sendto(fd, p, n, 0, peer, sizeof(struct sockaddr_in)) == (ssize_t)n ? 0 : -1;
}

static int bound_socket(int type)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(CONTENT_PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    (type == SOCK_STREAM && listen(fd, 8) != 0))
		pl_die("svc-content: socket on 127.0.0.1:%d: %s", CONTENT_PORT, strerror(errno));
	return fd;
}

static void *serve_tcp(void *arg)
{
	int lfd = (int)(intptr_t)arg;
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		struct content_request req;
		if (recv(fd, &req, sizeof(req), MSG_WAITALL) == (ssize_t)sizeof(req))
			respond(&req, fd, send_stream, NULL);
		close(fd);
	}
	return NULL;
}

static void *serve_udp(void *arg)
{
	int fd = (int)(intptr_t)arg;
	for (;;) {
		struct content_request req;
		struct sockaddr_in peer;
		socklen_t len = sizeof(peer);
		if (recvfrom(fd, &req, sizeof(req), 0, (struct sockaddr *)&peer, &len) ==
		    (ssize_t)sizeof(req))
			respond(&req, fd, send_datagram, &peer);
	}
	return NULL;
}

int main(void)
{
	sigset_t term;
	int sig, r;
	pthread_t tcp, udp;

	/* Blocked before the threads start, so only sigwait below takes SIGTERM. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL);
	if ((r = pl_net_loopback_up()) != 0)
		pl_die("svc-content: bring lo up: %s", strerror(-r));
	if ((r = pthread_create(&tcp, NULL, serve_tcp, (void *)(intptr_t)bound_socket(SOCK_STREAM))) ||
	    (r = pthread_create(&udp, NULL, serve_udp, (void *)(intptr_t)bound_socket(SOCK_DGRAM))))
		pl_die("svc-content: threads: %s", strerror(r));
	if ((r = pl_ready_signal()) != 0)
		pl_die("signal ready: %s", strerror(-r));
	sigwait(&term, &sig);
	return 0;
}
