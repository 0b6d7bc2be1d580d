/*
 * A neutral TCP echo server for bench/sendonly.sh: what each connection sends comes back to it,
 * and the bytes that went through are counted. Written for the benchmark only — plain epoll, no
 * framing, nothing of sockctl's — so that sockctl and tcpkali meet the same server.
 *
 * Usage: echo-server PORT [THREADS]
 *   Listens on 127.0.0.1:PORT (0: a free port) with THREADS threads (default: the number of
 *   online cores), each with a listening socket of its own (SO_REUSEPORT: the kernel spreads
 *   the connections) and an epoll set. Prints "listening on PORT" once every thread listens.
 *   On SIGINT or SIGTERM prints "echoed IN bytes in, OUT bytes out in SECONDS s" and exits 0:
 *   SECONDS is the time from the first byte read to the last (the client's sending window,
 *   whatever it did before or after it), so IN / SECONDS is the rate the server was served.
 *
 * Back-pressure: a connection whose echo the client does not read stops being read (its bytes
 * wait in a 64 KiB buffer, the socket is watched for room), so memory stays bounded.
 * Traffic: 127.0.0.1 only.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUFFER_SIZE 65536
#define MAX_THREADS 64

struct connection {
    int fd;
    size_t start, end; /* bytes read and not yet echoed: buffer[start..<end] */
    char buffer[BUFFER_SIZE];
};

static atomic_uint_fast64_t bytes_in, bytes_out;
/* Monotonic nanoseconds of the first and of the latest read (0: none yet). */
static atomic_uint_fast64_t first_read, last_read;
static int listeners[MAX_THREADS];
static volatile sig_atomic_t stopping;

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static int listen_on(int port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0) fail("socket");
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) fail("bind");
    if (listen(fd, 1024) < 0) fail("listen");
    return fd;
}

static void watch(int epoll, int op, struct connection *connection, int writable) {
    struct epoll_event event = {.events = writable ? EPOLLOUT : EPOLLIN, .data.ptr = connection};
    if (epoll_ctl(epoll, op, connection->fd, &event) < 0) fail("epoll_ctl");
}

static uint64_t now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void count_read(ssize_t got) {
    uint64_t now = now_ns(), none = 0;
    atomic_fetch_add_explicit(&bytes_in, (uint64_t)got, memory_order_relaxed);
    atomic_compare_exchange_strong(&first_read, &none, now);
    atomic_store_explicit(&last_read, now, memory_order_relaxed);
}

static void drop(struct connection *connection) {
    close(connection->fd);
    free(connection);
}

/* Writes what waits; 1 when all went, 0 when the socket is full, -1 when the connection failed. */
static int echo(struct connection *connection) {
    while (connection->start < connection->end) {
        ssize_t sent = send(connection->fd, connection->buffer + connection->start,
                            connection->end - connection->start, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
        connection->start += (size_t)sent;
        atomic_fetch_add_explicit(&bytes_out, (uint64_t)sent, memory_order_relaxed);
    }
    connection->start = connection->end = 0;
    return 1;
}

static void serve(int epoll, struct connection *connection, uint32_t events) {
    if (events & EPOLLOUT) {
        int done = echo(connection);
        if (done < 0) return drop(connection);
        if (done) watch(epoll, EPOLL_CTL_MOD, connection, 0);
        return;
    }
    for (int reads = 0; reads < 16; reads++) {
        ssize_t got = recv(connection->fd, connection->buffer, BUFFER_SIZE, MSG_DONTWAIT);
        if (got == 0) return drop(connection);
        if (got < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            return drop(connection);
        }
        count_read(got);
        connection->start = 0;
        connection->end = (size_t)got;
        int done = echo(connection);
        if (done < 0) return drop(connection);
        if (!done) return watch(epoll, EPOLL_CTL_MOD, connection, 1);
        if (got < BUFFER_SIZE) return;
    }
}

static void *run(void *argument) {
    int listener = *(int *)argument;
    int epoll = epoll_create1(0);
    if (epoll < 0) fail("epoll_create1");
    struct epoll_event event = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &event) < 0) fail("epoll_ctl");
    struct epoll_event events[256];
    while (!stopping) {
        int count = epoll_wait(epoll, events, 256, 100);
        for (int i = 0; i < count; i++) {
            if (events[i].data.ptr == NULL) {
                int fd;
                while ((fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    int one = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct connection *connection = calloc(1, sizeof *connection);
                    if (!connection) fail("calloc");
                    connection->fd = fd;
                    watch(epoll, EPOLL_CTL_ADD, connection, 0);
                }
                continue;
            }
            serve(epoll, events[i].data.ptr, events[i].events);
        }
    }
    return NULL;
}

static void on_signal(int signal) {
    (void)signal;
    stopping = 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: echo-server PORT [THREADS]\n");
        return 2;
    }
    int port = atoi(argv[1]);
    long threads = argc > 2 ? atol(argv[2]) : sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1 || threads > MAX_THREADS) threads = 1;
    listeners[0] = listen_on(port);
    if (port == 0) {
        struct sockaddr_in bound;
        socklen_t length = sizeof bound;
        getsockname(listeners[0], (struct sockaddr *)&bound, &length);
        port = ntohs(bound.sin_port);
    }
    for (long i = 1; i < threads; i++) listeners[i] = listen_on(port);
    struct sigaction action = {.sa_handler = on_signal};
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    signal(SIGPIPE, SIG_IGN);
    pthread_t ids[MAX_THREADS];
    for (long i = 0; i < threads; i++) pthread_create(&ids[i], NULL, run, &listeners[i]);
    printf("listening on %d\n", port);
    fflush(stdout);
    for (long i = 0; i < threads; i++) pthread_join(ids[i], NULL);
    double seconds = (double)(atomic_load(&last_read) - atomic_load(&first_read)) / 1e9;
    printf("echoed %llu bytes in, %llu bytes out in %.3f s\n", (unsigned long long)atomic_load(&bytes_in),
           (unsigned long long)atomic_load(&bytes_out), seconds);
    return 0;
}
