/*
 * svc-content: the network workloads' content peer on the qemu backend, which has no content
 * server of its own (on the phone the emulator's serves them). panlab-session starts it when
 * the backend exports no PANLAB_CONTENT_HOST. It speaks the one content protocol
 * (include/panlab/content_request.h), HTTP/1.0 over TCP on 127.0.0.1:CONTENT_HTTP_PORT and a
 * request datagram on 127.0.0.1:CONTENT_UDP_PORT, and serves generated content only (/fetch);
 * latency and pacing are CLOCK_MONOTONIC sleeps in the guest, so on QEMU with icount a run is
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

#include "panlab/content_request.h"
#include "panlab/error.h"
#include "panlab/net.h"
#include "panlab/ready.h"

static void sleep_ns(uint64_t ns)
{
	struct timespec d = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
	while (nanosleep(&d, &d) != 0 && errno == EINTR)
		;
}

/* Sends the response of req through send_piece: after the latency, head (TCP; NULL for UDP)
 * and the first piece, then a piece every CONTENT_PIECE_BYTES / rate s; stops if one fails. */
static void respond(const struct content_req *req, int fd, const char *head,
		    int (*send_piece)(int fd, const void *p, size_t n, const void *peer),
		    const void *peer)
{
	static const uint8_t content[CONTENT_PIECE_BYTES] = { 0x5a };
	uint64_t piece_ns = req->bytes_per_s ?
		(uint64_t)CONTENT_PIECE_BYTES * 1000000000u / req->bytes_per_s : 0;
	sleep_ns(req->latency_ms * UINT64_C(1000000));
	if (head && send_piece(fd, head, strlen(head), peer) != 0)
		return;
	for (uint32_t left = req->bytes;;) {
		size_t n = left < CONTENT_PIECE_BYTES ? left : CONTENT_PIECE_BYTES;
		/* A short piece ends a datagram response; TCP ends with the body. */
		if ((n || !head) && send_piece(fd, content, n, peer) != 0)
			return;
		if (n < CONTENT_PIECE_BYTES)
			return;
		left -= (uint32_t)n;
		sleep_ns(piece_ns);
	}
}

static int send_stream(int fd, const void *p, size_t n, const void *peer)
{
	(void)peer;
	return send(fd, p, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

static int send_datagram(int fd, const void *p, size_t n, const void *peer)
{
	return sendto(fd, p, n, 0, peer, sizeof(struct sockaddr_in)) == (ssize_t)n ? 0 : -1;
}

static int bound_socket(int type, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    (type == SOCK_STREAM && listen(fd, 8) != 0))
		pl_die("svc-content: socket on 127.0.0.1:%d: %s", port, strerror(errno));
	return fd;
}

/* Reads a request head (up to its blank line) from a TCP connection; 0, or -1 if it ends first. */
static int read_head(int fd, char *head)
{
	size_t len = 0;

	while (len < CONTENT_REQ_MAX - 1) {
		ssize_t n = recv(fd, head + len, CONTENT_REQ_MAX - 1 - len, 0);
		if (n <= 0)
			return -1;
		len += (size_t)n;
		head[len] = '\0';
		if (strstr(head, "\r\n\r\n"))
			return 0;
	}
	return 0;	/* too long: the parser refuses it */
}

/* A request the peer does not serve gets its status and the reason as the body. */
static void refuse(int fd, const char *status, const char *reason)
{
	char head[256];

	content_response_head(head, sizeof(head), status, "text/plain", strlen(reason) + 1);
	if (send_stream(fd, head, strlen(head), NULL) == 0 &&
	    send_stream(fd, reason, strlen(reason), NULL) == 0)
		send_stream(fd, "\n", 1, NULL);
}

static void *serve_tcp(void *arg)
{
	int lfd = (int)(intptr_t)arg;
	for (;;) {
		char head[CONTENT_REQ_MAX], ok[256];
		struct content_req req;
		struct pl_error err;
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (read_head(fd, head) == 0) {
			if (content_req_parse(head, &req, &err) != 0) {
				refuse(fd, "400 Bad Request", err.msg);
			} else if (!req.generated) {
				refuse(fd, "404 Not Found", "svc-content serves no files, only /fetch");
			} else {
				content_response_head(ok, sizeof(ok), "200 OK",
						      "application/octet-stream", req.bytes);
				respond(&req, fd, ok, send_stream, NULL);
			}
		}
		close(fd);
	}
	return NULL;
}

/* A datagram that is no /fetch request gets no answer: the client times out. */
static void *serve_udp(void *arg)
{
	int fd = (int)(intptr_t)arg;
	for (;;) {
		char text[CONTENT_REQ_MAX];
		struct content_req req;
		struct pl_error err;
		struct sockaddr_in peer;
		socklen_t len = sizeof(peer);
		ssize_t n = recvfrom(fd, text, sizeof(text) - 1, 0, (struct sockaddr *)&peer, &len);
		if (n < 0)
			continue;
		text[n] = '\0';
		if (content_req_parse(text, &req, &err) == 0 && req.generated)
			respond(&req, fd, NULL, send_datagram, &peer);
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
	if ((r = pthread_create(&tcp, NULL, serve_tcp,
				(void *)(intptr_t)bound_socket(SOCK_STREAM, CONTENT_HTTP_PORT))) ||
	    (r = pthread_create(&udp, NULL, serve_udp,
				(void *)(intptr_t)bound_socket(SOCK_DGRAM, CONTENT_UDP_PORT))))
		pl_die("svc-content: threads: %s", strerror(r));
	if ((r = pl_ready_signal()) != 0)
		pl_die("signal ready: %s", strerror(-r));
	sigwait(&term, &sig);
	return 0;
}
