/* meshrun --tag-output: the ranks' output read from pipes and passed on line by line. */
#include "meshrun_output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int meshrun_output_open(meshrun_output_t *o, int nranks)
{
    o->n = 2 * nranks;
    o->streams = calloc((size_t)o->n, sizeof(*o->streams));
    if (o->streams == NULL)
        return -1;
    for (int i = 0; i < o->n; i++) {
        meshrun_stream_t *s = &o->streams[i];
        int p[2];
        s->buf = malloc(MESHRUN_LINE_MAX);
        if (s->buf == NULL || pipe2(p, O_CLOEXEC) != 0)
            return -1;
        s->fd = p[0];
        s->wfd = p[1];
        s->rank = i / 2;
        s->out_fd = 1 + i % 2;
    }
    return 0;
}

void meshrun_output_child(meshrun_output_t *o, int rank)
{
    /* dup2 clears close-on-exec on the copies: only these two survive the exec */
    dup2(o->streams[2 * rank].wfd, STDOUT_FILENO);
    dup2(o->streams[2 * rank + 1].wfd, STDERR_FILENO);
}

void meshrun_output_forked(meshrun_output_t *o, int rank)
{
    for (int i = 2 * rank; i < 2 * rank + 2; i++) {
        close(o->streams[i].wfd);
        o->streams[i].wfd = -1;
    }
}

/* write all of @p len bytes, retrying short writes and interruptions */
static void write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* the reader is gone: nothing to do about it */
        p += w;
        len -= (size_t)w;
    }
}

/* pass on the @p len bytes at @p text as one line of @p s, prefixed, with a newline */
static void emit(const meshrun_stream_t *s, const char *text, size_t len)
{
    char prefix[24];
    int plen = snprintf(prefix, sizeof(prefix), "[%d] ", s->rank);
    size_t total = (size_t)plen + len + 1;
    char stack[4096], *line = total <= sizeof(stack) ? stack : malloc(total);
    if (line == NULL)
        return;
    memcpy(line, prefix, (size_t)plen);
    memcpy(line + plen, text, len);
    line[total - 1] = '\n';
    write_all(s->out_fd, line, total); /* one write: the line arrives whole */
    if (line != stack)
        free(line);
}

/* read what @p s has; pass on its complete lines. @return 0, or -1 at its end */
static int drain(meshrun_stream_t *s)
{
    ssize_t r = read(s->fd, s->buf + s->len, MESHRUN_LINE_MAX - s->len);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (r <= 0) {
        if (s->len)
            emit(s, s->buf, s->len); /* the last line, unfinished: passed on with a newline */
        s->len = 0;
        close(s->fd);
        s->fd = -1;
        return -1;
    }
    s->len += (size_t)r;
    size_t start = 0;
    for (char *nl; (nl = memchr(s->buf + start, '\n', s->len - start)) != NULL;) {
        size_t end = (size_t)(nl - s->buf);
        emit(s, s->buf + start, end - start);
        start = end + 1;
    }
    memmove(s->buf, s->buf + start, s->len - start);
    s->len -= start;
    if (s->len == MESHRUN_LINE_MAX) { /* a line longer than the buffer: passed on in pieces */
        emit(s, s->buf, s->len);
        s->len = 0;
    }
    return 0;
}

int meshrun_output_pump(meshrun_output_t *o, int timeout_ms)
{
    struct pollfd fds[2 * 4096];
    int idx[2 * 4096], n = 0;
    for (int i = 0; i < o->n && n < (int)(sizeof(fds) / sizeof(fds[0])); i++) {
        if (o->streams[i].fd < 0)
            continue;
        fds[n] = (struct pollfd){.fd = o->streams[i].fd, .events = POLLIN};
        idx[n++] = i;
    }
    if (n == 0) {
        if (timeout_ms > 0)
            usleep((useconds_t)timeout_ms * 1000);
        return 0;
    }
    int ready = poll(fds, (nfds_t)n, timeout_ms);
    int open = n;
    for (int k = 0; ready > 0 && k < n; k++)
        if (fds[k].revents && drain(&o->streams[idx[k]]) < 0)
            open--;
    return open;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void meshrun_output_close(meshrun_output_t *o, int timeout_ms)
{
    double end = now_ms() + timeout_ms;
    while (meshrun_output_pump(o, 20) > 0 && now_ms() < end)
        ;
    for (int i = 0; i < o->n; i++) {
        meshrun_stream_t *s = &o->streams[i];
        if (s->fd >= 0) {
            if (s->len)
                emit(s, s->buf, s->len);
            close(s->fd);
        }
        free(s->buf);
    }
    free(o->streams);
    o->streams = NULL;
    o->n = 0;
}
