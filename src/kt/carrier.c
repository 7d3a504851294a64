/* SPDX-License-Identifier: MIT */
/* Byte streams to a child process or a TCP peer, with every wait bounded. */
#define _POSIX_C_SOURCE 200809L /* getaddrinfo, sigtimedwait, clock_gettime */
#include "carrier.h"
#include "npukit/kt_serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { READ_CHUNK = 65536 };

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is ready for `events` or the deadline passes (deadline < 0: no deadline). */
static npk_status wait_fd(kt_carrier *c, int fd, short events, int64_t deadline)
{
    for (;;) {
        int ms = -1;
        if (deadline >= 0) {
            int64_t left = deadline - now_ms();
            ms = left < 0 ? 0 : (int)left;
        }
        struct pollfd p = {fd, events, 0};
        int r = poll(&p, 1, ms);
        if (r > 0)
            return NPK_OK; /* readable, writable, hung up or in error: the I/O call says which */
        if (r == 0)
            return npk_fail(NPK_ETIMEDOUT, "%s: no progress within %u ms", c->what, c->timeout_ms);
        if (errno != EINTR)
            return npk_fail(NPK_EIO, "%s: poll: %s", c->what, strerror(errno));
    }
}

static int64_t deadline_of(const kt_carrier *c)
{
    return c->timeout_ms ? now_ms() + c->timeout_ms : -1;
}

static void init(kt_carrier *c, unsigned timeout_ms)
{
    memset(c, 0, sizeof *c);
    c->rfd = c->wfd = -1;
    c->timeout_ms = timeout_ms;
}

static void set_cloexec(int fd) { fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC); }

npk_status kt_carrier_spawn(kt_carrier *c, const char *cmd, unsigned timeout_ms)
{
    init(c, timeout_ms);
    snprintf(c->what, sizeof c->what, "pipe '%.160s'", cmd);
    int to_child[2], from_child[2];
    if (pipe(to_child))
        return npk_fail(NPK_EIO, "%s: pipe: %s", c->what, strerror(errno));
    if (pipe(from_child)) {
        close(to_child[0]);
        close(to_child[1]);
        return npk_fail(NPK_EIO, "%s: pipe: %s", c->what, strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(to_child[0]);
        close(to_child[1]);
        close(from_child[0]);
        close(from_child[1]);
        return npk_fail(NPK_EIO, "%s: fork: %s", c->what, strerror(e));
    }
    if (pid == 0) {
        /* Its own process group, so closing reaches a pipeline or wrapper script as a whole. */
        setpgid(0, 0);
        dup2(to_child[0], 0);
        dup2(from_child[1], 1);
        close(to_child[0]);
        close(to_child[1]);
        close(from_child[0]);
        close(from_child[1]);
        signal(SIGPIPE, SIG_DFL);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid); /* also here: whichever runs first, the group exists before we signal it */
    close(to_child[0]);
    close(from_child[1]);
    c->wfd = to_child[1];
    c->rfd = from_child[0];
    set_cloexec(c->wfd);
    set_cloexec(c->rfd);
    c->pid = pid;
    return NPK_OK;
}

npk_status kt_split_host_port(const char *text, char *host, size_t hostlen, unsigned *port)
{
    const char *colon = text ? strrchr(text, ':') : NULL;
    if (!colon || colon == text)
        return npk_fail(NPK_EINVAL, "'%s' is not HOST:PORT", text ? text : "");
    const char *h = text;
    size_t hl = (size_t)(colon - text);
    if (h[0] == '[' && hl >= 2 && h[hl - 1] == ']') { /* [v6]:port */
        h++;
        hl -= 2;
    }
    if (hl + 1 > hostlen)
        return npk_fail(NPK_ELIMIT, "host in '%s' is longer than %zu characters", text,
                        hostlen - 1);
    char *end = NULL;
    errno = 0;
    unsigned long p = strtoul(colon + 1, &end, 10);
    if (!colon[1] || errno || *end || p > 65535)
        return npk_fail(NPK_EINVAL, "port '%s' in '%s' is not a number 0..65535", colon + 1, text);
    memcpy(host, h, hl);
    host[hl] = '\0';
    *port = (unsigned)p;
    return NPK_OK;
}

static npk_status resolve(const char *host_port, int flags, struct addrinfo **res)
{
    char host[256], port_text[8];
    unsigned port;
    npk_status s = kt_split_host_port(host_port, host, sizeof host, &port);
    if (s)
        return s;
    snprintf(port_text, sizeof port_text, "%u", port);
    struct addrinfo hints = {0};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = flags;
    int r = getaddrinfo(host, port_text, &hints, res);
    if (r)
        return npk_fail(NPK_ENODEV, "cannot resolve '%s': %s", host_port, gai_strerror(r));
    return NPK_OK;
}

npk_status kt_carrier_connect(kt_carrier *c, const char *host_port, unsigned timeout_ms)
{
    init(c, timeout_ms);
    snprintf(c->what, sizeof c->what, "tcp %.180s", host_port);
    struct addrinfo *res = NULL;
    npk_status s = resolve(host_port, 0, &res);
    if (s)
        return s;
    int fd = -1, err = 0;
    int64_t deadline = deadline_of(c);
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        set_cloexec(fd);
        /* A non-blocking connect, so an address that swallows SYNs costs the timeout, no more. */
        int fl = fcntl(fd, F_GETFL);
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
        int r = connect(fd, a->ai_addr, a->ai_addrlen);
        if (r && errno == EINPROGRESS) {
            if ((s = wait_fd(c, fd, POLLOUT, deadline))) {
                close(fd);
                freeaddrinfo(res);
                return npk_fail(NPK_ETIMEDOUT, "%s: no connection within %u ms", c->what,
                                timeout_ms);
            }
            socklen_t len = sizeof err;
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
            r = err ? -1 : 0;
        } else if (r) {
            err = errno;
        }
        if (r) {
            close(fd);
            fd = -1;
            continue;
        }
        fcntl(fd, F_SETFL, fl);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
                   sizeof one); /* one small request per reply */
    }
    freeaddrinfo(res);
    if (fd < 0)
        return npk_fail(NPK_ENODEV, "%s: cannot connect: %s", c->what,
                        strerror(err ? err : ECONNREFUSED));
    c->rfd = c->wfd = fd;
    return NPK_OK;
}

void kt_carrier_from_fds(kt_carrier *c, int rfd, int wfd, const char *what, unsigned timeout_ms)
{
    init(c, timeout_ms);
    c->rfd = rfd;
    c->wfd = wfd;
    snprintf(c->what, sizeof c->what, "%s", what);
}

/* One write that neither blocks nor raises SIGPIPE, called only after poll() said the descriptor
 * is writable. A socket is told so per call (MSG_DONTWAIT | MSG_NOSIGNAL), so the descriptor's
 * own flags (a shared stdout, an application's socket) stay as they are. A pipe has no per-call
 * flag, but after POLLOUT it has room for at least PIPE_BUF bytes, so a write of at most that
 * never blocks; for a pipe SIGPIPE is blocked for this thread and a pending one taken back, so
 * the process's handlers stay as the application set them. */
static ssize_t write_nosignal(int fd, const void *buf, size_t len)
{
    ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0 || errno != ENOTSOCK)
        return n;
    if (len > PIPE_BUF)
        len = PIPE_BUF;
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    n = write(fd, buf, len);
    int e = errno;
    if (n < 0 && e == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return n;
}

npk_status kt_carrier_write_some(kt_carrier *c, const void *buf, size_t len, size_t *sent)
{
    *sent = 0;
    if (c->wfd < 0)
        return npk_fail(NPK_EIO, "%s: the connection is closed", c->what);
    for (;;) {
        ssize_t n = write_nosignal(c->wfd, buf, len);
        if (n >= 0) {
            *sent = (size_t)n;
            return NPK_OK;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return NPK_OK;
        if (errno != EINTR) {
            char st[64];
            return npk_fail(NPK_EIO, "%s: the peer is gone (%s)%s%s", c->what, strerror(errno),
                            c->pid ? ", child " : "", kt_carrier_exit_text(c, st, sizeof st));
        }
    }
}

/* The whole buffer within one deadline: a peer that stops reading costs the timeout once, however
 * large the message, never a write that blocks past it. */
npk_status kt_carrier_send(kt_carrier *c, const void *buf, size_t len)
{
    const char *p = buf;
    int64_t deadline = deadline_of(c);
    if (c->wfd < 0)
        return npk_fail(NPK_EIO, "%s: the connection is closed", c->what);
    size_t total = len;
    while (len) {
        npk_status s = wait_fd(c, c->wfd, POLLOUT, deadline);
        if (s == NPK_ETIMEDOUT)
            return npk_fail(s,
                            "%s: the peer took %zu of %zu bytes within %u ms and stopped reading",
                            c->what, total - len, total, c->timeout_ms);
        if (s)
            return s;
        size_t n;
        if ((s = kt_carrier_write_some(c, p, len, &n)))
            return s;
        p += n;
        len -= n;
    }
    return NPK_OK;
}

/* Read more bytes into the buffer; 0 bytes means end of stream. */
static npk_status fill(kt_carrier *c, int64_t deadline, size_t *got)
{
    if (c->start == c->end)
        c->start = c->end = 0;
    if (c->cap - c->end < READ_CHUNK) {
        if (c->start) { /* slide the unread part down before growing */
            memmove(c->buf, c->buf + c->start, c->end - c->start);
            c->end -= c->start;
            c->start = 0;
        }
        if (c->cap - c->end < READ_CHUNK) {
            size_t cap = c->cap ? c->cap * 2 : 2 * READ_CHUNK;
            char *b = realloc(c->buf, cap);
            if (!b)
                return npk_fail(NPK_ENOMEM, "%s: out of memory for %zu bytes of input", c->what,
                                cap);
            c->buf = b;
            c->cap = cap;
        }
    }
    for (;;) {
        if (c->rfd < 0)
            return npk_fail(NPK_EIO, "%s: the connection is closed", c->what);
        npk_status s = wait_fd(c, c->rfd, POLLIN, deadline);
        if (s)
            return s;
        ssize_t n = read(c->rfd, c->buf + c->end, c->cap - c->end - 1);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0 && errno != ECONNRESET)
            return npk_fail(NPK_EIO, "%s: read: %s", c->what, strerror(errno));
        *got = n < 0 ? 0 : (size_t)n;
        c->end += *got;
        return NPK_OK;
    }
}

size_t kt_carrier_buffered(const kt_carrier *c) { return c->end - c->start; }

/* Describe a peer that closed: a child gets a moment to be reaped so its status can be named. */
static npk_status closed_error(kt_carrier *c, const char *during)
{
    char st[64] = "";
    if (c->pid) {
        for (int i = 0; i < 50 && !c->reaped; i++) {
            kt_carrier_exit_text(c, st, sizeof st);
            if (!c->reaped) {
                struct timespec ms10 = {0, 10 * 1000 * 1000};
                nanosleep(&ms10, NULL);
            }
        }
        kt_carrier_exit_text(c, st, sizeof st);
    }
    return npk_fail(NPK_EIO, "%s: the peer closed the connection%s%s%s%s", c->what,
                    during[0] ? " " : "", during, st[0] ? "; child " : "", st);
}

int64_t kt_carrier_deadline(const kt_carrier *c) { return deadline_of(c); }

npk_status kt_carrier_line(kt_carrier *c, size_t max, char **line, bool *eof)
{
    return kt_carrier_line_by(c, max, line, eof, deadline_of(c));
}

npk_status kt_carrier_line_by(kt_carrier *c, size_t max, char **line, bool *eof, int64_t deadline)
{
    size_t scanned = 0;
    if (eof)
        *eof = false;
    for (;;) {
        char *nl =
            c->buf ? memchr(c->buf + c->start + scanned, '\n', c->end - c->start - scanned) : NULL;
        if (nl) {
            char *l = c->buf + c->start;
            size_t n = (size_t)(nl - l);
            c->start += n + 1;
            if (n && l[n - 1] == '\r')
                n--;
            l[n] = '\0';
            *line = l;
            return NPK_OK;
        }
        scanned = c->end - c->start;
        if (scanned > max)
            return npk_fail(NPK_EPROTO, "%s: a line longer than %zu bytes", c->what, max);
        size_t got;
        npk_status s = fill(c, deadline, &got);
        if (s)
            return s;
        if (!got) {
            if (!scanned && eof) {
                *eof = true;
                *line = NULL;
                return NPK_OK;
            }
            return closed_error(c, scanned ? "in the middle of a line" : "");
        }
    }
}

npk_status kt_carrier_read(kt_carrier *c, void *buf, size_t len)
{
    int64_t deadline = deadline_of(c);
    char *p = buf;
    while (len) {
        if (c->start == c->end) {
            size_t got;
            npk_status s = fill(c, deadline, &got);
            if (s)
                return s;
            if (!got)
                return closed_error(c, "in the middle of a message");
        }
        size_t n = c->end - c->start < len ? c->end - c->start : len;
        memcpy(p, c->buf + c->start, n);
        c->start += n;
        p += n;
        len -= n;
    }
    return NPK_OK;
}

const char *kt_carrier_exit_text(kt_carrier *c, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!c->pid)
        return buf;
    if (!c->reaped) {
        pid_t r = waitpid(c->pid, &c->wstatus, WNOHANG);
        c->reaped = r == c->pid;
    }
    if (!c->reaped)
        snprintf(buf, len, "still running");
    else if (WIFEXITED(c->wstatus))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(c->wstatus));
    else if (WIFSIGNALED(c->wstatus))
        snprintf(buf, len, "killed by signal %d", WTERMSIG(c->wstatus));
    return buf;
}

bool kt_carrier_exited_ok(const kt_carrier *c)
{
    return c->reaped && WIFEXITED(c->wstatus) && WEXITSTATUS(c->wstatus) == 0;
}

/* Wait up to `ms` for the child to exit. */
static bool reap_within(kt_carrier *c, unsigned ms)
{
    char st[64];
    int64_t deadline = now_ms() + ms;
    for (;;) {
        kt_carrier_exit_text(c, st, sizeof st);
        if (c->reaped || now_ms() >= deadline)
            return c->reaped;
        struct timespec ms5 = {0, 5 * 1000 * 1000};
        nanosleep(&ms5, NULL);
    }
}

void kt_carrier_close(kt_carrier *c, unsigned grace_ms)
{
    if (c->wfd >= 0)
        close(c->wfd);
    if (c->rfd >= 0 && c->rfd != c->wfd)
        close(c->rfd);
    c->rfd = c->wfd = -1;
    if (c->pid && !reap_within(c, grace_ms)) {
        kill(-c->pid, SIGTERM);
        if (!reap_within(c, 500)) {
            kill(-c->pid, SIGKILL);
            reap_within(c, 5000);
        }
    }
    free(c->buf);
    c->buf = NULL;
    c->start = c->end = c->cap = 0;
}

static bool is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        static const uint8_t v6_loopback[16] = {[15] = 1};
        return !memcmp(a->s6_addr, v6_loopback, 16);
    }
    return false;
}

npk_status kt_listen_tcp(const char *host_port, bool any_address, int *fd_out, unsigned *port)
{
    struct addrinfo *res = NULL;
    npk_status s = resolve(host_port, AI_PASSIVE, &res);
    if (s)
        return s;
    struct addrinfo *a = res;
    if (!any_address && !is_loopback(a->ai_addr)) {
        freeaddrinfo(res);
        return npk_fail(
            NPK_EINVAL,
            "'%s' is not a loopback address: the machine would be reachable from the network "
            "(allow it explicitly)",
            host_port);
    }
    int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) {
        freeaddrinfo(res);
        return npk_fail(NPK_EIO, "socket for '%s': %s", host_port, strerror(errno));
    }
    set_cloexec(fd);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) || listen(fd, 16)) {
        int e = errno;
        close(fd);
        freeaddrinfo(res);
        return npk_fail(NPK_EIO, "cannot listen on '%s': %s", host_port, strerror(e));
    }
    freeaddrinfo(res);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &len);
    *port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                           : ((struct sockaddr_in *)&ss)->sin_port);
    *fd_out = fd;
    return NPK_OK;
}
