/* The ranks' output read from pipes (or fed from mpirun) and passed on line by line. */
#include "meshrun_output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int meshrun_output_open(meshrun_output_t *o, int nranks, bool tag)
{
    *o = (meshrun_output_t){.n = 2 * nranks, .tag = tag};
    o->streams = calloc((size_t)o->n, sizeof(*o->streams));
    if (o->streams == NULL)
        return -1;
    for (int i = 0; i < o->n; i++) {
        meshrun_stream_t *s = &o->streams[i];
        s->fd = s->wfd = -1;
        s->rank = i / 2;
        s->out_fd = 1 + i % 2;
    }
    return 0;
}

/* a pseudo terminal for a rank's stdout, its output passed on byte for byte (no "\r\n"), the
 * size of meshrun's terminal: *master and *slave, or -1 */
static int open_pty(int *master, int *slave)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    char name[128];
    if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0 || ptsname_r(m, name, sizeof(name)) != 0) {
        if (m >= 0)
            close(m);
        return -1;
    }
    int s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    struct termios t;
    if (s < 0 || tcgetattr(s, &t) != 0) {
        if (s >= 0)
            close(s);
        close(m);
        return -1;
    }
    cfmakeraw(&t);
    tcsetattr(s, TCSANOW, &t);
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0)
        ioctl(s, TIOCSWINSZ, &ws);
    *master = m;
    *slave = s;
    return 0;
}

int meshrun_output_make(meshrun_output_t *o, int rank, bool tty)
{
    for (int k = 0; k < 2; k++) {
        meshrun_stream_t *s = &o->streams[2 * rank + k];
        int p[2];
        if (s->buf == NULL && (s->buf = malloc(MESHRUN_LINE_MAX)) == NULL)
            return -1;
        s->tty = k == 0 && tty && open_pty(&p[0], &p[1]) == 0;
        if (!s->tty && pipe2(p, O_CLOEXEC) != 0) {
            if (k == 1) { /* the rank writes to meshrun's own stdout and stderr */
                close(o->streams[2 * rank].fd);
                close(o->streams[2 * rank].wfd);
                o->streams[2 * rank].fd = o->streams[2 * rank].wfd = -1;
            }
            return -1;
        }
        s->fd = p[0];
        s->wfd = p[1];
    }
    return 0;
}

void meshrun_output_child(meshrun_output_t *o, int rank)
{
    /* dup2 clears close-on-exec on the copies: only these two survive the exec */
    for (int k = 0; k < 2; k++)
        if (o->streams[2 * rank + k].wfd >= 0)
            dup2(o->streams[2 * rank + k].wfd, STDOUT_FILENO + k);
}

void meshrun_output_forked(meshrun_output_t *o, int rank)
{
    for (int i = 2 * rank; i < 2 * rank + 2; i++) {
        if (o->streams[i].wfd >= 0)
            close(o->streams[i].wfd);
        o->streams[i].wfd = -1;
    }
}

/* the reader of meshrun's stdout or stderr went away (EPIPE: `meshrun ... | head`) */
static bool closed_out[3];

/* write all of @p len bytes, retrying short writes and interruptions */
static void write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w < 0 && errno == EPIPE && fd >= 1 && fd <= 2)
                closed_out[fd] = true;
            return;
        }
        p += w;
        len -= (size_t)w;
    }
}

bool meshrun_output_closed(void)
{
    return closed_out[1] || closed_out[2];
}

/*
 * Write @p len bytes of rank @p rank's output to @p fd. A rank's unfinished line (a prompt, or
 * its last line without a newline) is ended before another rank's output follows it on the
 * same stream, so that every rank's output starts on a line of its own; a lone rank's output
 * is passed on byte for byte.
 */
static void write_out(int fd, int rank, const char *p, size_t len)
{
    static int last_rank[3] = {-1, -1, -1};
    static bool open_line[3];
    if (len == 0 || fd < 1 || fd > 2)
        return;
    if (open_line[fd] && last_rank[fd] != rank)
        write_all(fd, "\n", 1);
    write_all(fd, p, len);
    last_rank[fd] = rank;
    open_line[fd] = p[len - 1] != '\n';
}

/* room for @p more bytes in the batch; false when memory is short */
static bool scratch_room(meshrun_output_t *o, size_t used, size_t more)
{
    if (used + more <= o->scratch_cap)
        return true;
    size_t cap = o->scratch_cap ? o->scratch_cap : 4096;
    while (cap < used + more)
        cap *= 2;
    char *p = realloc(o->scratch, cap);
    if (p == NULL)
        return false;
    o->scratch = p;
    o->scratch_cap = cap;
    return true;
}

/*
 * Pass on the @p len bytes at @p text of @p s: whole lines, each ended by '\n' (@p newline
 * adds one to the last). Unmarked and unfiltered, in one write as they are; else through the
 * batch, each line marked or checked.
 */
static void emit(meshrun_output_t *o, meshrun_stream_t *s, const char *text, size_t len,
                 bool newline)
{
    bool filtered = o->filter && s->out_fd == 2;
    if (!o->tag && !filtered && !newline) {
        write_out(s->out_fd, s->rank, text, len);
        return;
    }
    size_t used = 0;
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (!filtered || o->filter(o->filter_ctx, s->rank, text + start, end - start)) {
            char mark[24] = "";
            int mlen = o->tag && !s->midline ? snprintf(mark, sizeof(mark), "[%d] ", s->rank) : 0;
            if (!scratch_room(o, used, (size_t)mlen + end - start + 1))
                break;
            memcpy(o->scratch + used, mark, (size_t)mlen);
            memcpy(o->scratch + used + mlen, text + start, end - start);
            used += (size_t)mlen + end - start;
            if (nl || newline)
                o->scratch[used++] = '\n';
        }
        s->midline = false;
        start = end + 1;
    }
    write_out(s->out_fd, s->rank, o->scratch, used); /* one write: its lines arrive whole */
}

/* @p s has new bytes in its buffer: pass on its complete lines, keep the rest */
static void take_lines(meshrun_output_t *o, meshrun_stream_t *s, size_t before)
{
    char *last = NULL;
    for (size_t i = s->len; i > before; i--)
        if (s->buf[i - 1] == '\n') {
            last = s->buf + i - 1;
            break;
        }
    if (last == NULL && before == 0)
        s->since_ms = now_ms(); /* a line begins to arrive */
    if (last != NULL) {
        size_t end = (size_t)(last - s->buf) + 1;
        emit(o, s, s->buf, end, false);
        memmove(s->buf, s->buf + end, s->len - end);
        s->len -= end;
        s->since_ms = now_ms();
    }
    if (s->len == MESHRUN_LINE_MAX) { /* a line longer than the buffer: passed on in pieces */
        emit(o, s, s->buf, s->len, o->tag);
        s->midline = !o->tag;
        s->len = 0;
    }
}

/* the end of @p s: its last line goes on, unfinished as it is (with a newline when marked) */
static void finish(meshrun_output_t *o, meshrun_stream_t *s)
{
    if (s->len)
        emit(o, s, s->buf, s->len, o->tag);
    s->len = 0;
    s->midline = false;
}

void meshrun_output_feed(meshrun_output_t *o, int rank, int kind, const char *data, size_t n)
{
    if (rank < 0 || 2 * rank + 1 >= o->n)
        return;
    meshrun_stream_t *s = &o->streams[2 * rank + (kind != 0)];
    if (s->buf == NULL && (s->buf = malloc(MESHRUN_LINE_MAX)) == NULL)
        return;
    while (n > 0) {
        size_t room = MESHRUN_LINE_MAX - s->len, take = n < room ? n : room;
        memcpy(s->buf + s->len, data, take);
        s->len += take;
        take_lines(o, s, s->len - take);
        data += take;
        n -= take;
    }
}

/* read what @p s has; pass on its complete lines. @return 0, or -1 at its end */
static int drain(meshrun_output_t *o, meshrun_stream_t *s)
{
    ssize_t r = read(s->fd, s->buf + s->len, MESHRUN_LINE_MAX - s->len);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (r <= 0) { /* the end (a pseudo terminal's is EIO) */
        finish(o, s);
        close(s->fd);
        s->fd = -1;
        return -1;
    }
    s->len += (size_t)r;
    take_lines(o, s, s->len - (size_t)r);
    if (closed_out[s->out_fd]) {
        /* nobody reads what the rank writes: its next write gets SIGPIPE, as it would
         * have written to that reader itself */
        close(s->fd);
        s->fd = -1;
        s->len = 0;
        return -1;
    }
    return 0;
}

/* unfinished lines that waited long enough for their newline go on as they are */
static void flush_waiting(meshrun_output_t *o)
{
    if (o->tag)
        return;
    double now = now_ms();
    for (int i = 0; i < o->n; i++) {
        meshrun_stream_t *s = &o->streams[i];
        if (s->len && now - s->since_ms >= MESHRUN_PARTIAL_MS) {
            emit(o, s, s->buf, s->len, false);
            s->len = 0;
            s->midline = true;
        }
    }
}

/* poll the open streams, pass on what they have; @p got counts the streams read. @return the
 * streams still open */
static int pump(meshrun_output_t *o, int timeout_ms, int *got)
{
    struct pollfd fds[2 * 4096];
    int idx[2 * 4096], n = 0;
    *got = 0;
    for (int i = 0; i < o->n && n < (int)(sizeof(fds) / sizeof(fds[0])); i++) {
        if (o->streams[i].fd < 0)
            continue;
        fds[n] = (struct pollfd){.fd = o->streams[i].fd, .events = POLLIN};
        idx[n++] = i;
    }
    if (n == 0) {
        if (timeout_ms > 0)
            usleep((useconds_t)timeout_ms * 1000);
        flush_waiting(o);
        return 0;
    }
    int ready = poll(fds, (nfds_t)n, timeout_ms);
    int open = n;
    for (int k = 0; ready > 0 && k < n; k++) {
        if (!fds[k].revents)
            continue;
        (*got)++;
        if (drain(o, &o->streams[idx[k]]) < 0)
            open--;
    }
    flush_waiting(o);
    return open;
}

int meshrun_output_pump(meshrun_output_t *o, int timeout_ms)
{
    int got;
    return pump(o, timeout_ms, &got);
}

void meshrun_output_drain(meshrun_output_t *o)
{
    int got = 1;
    /* bounded: a rank that keeps writing must not hold meshrun's own line back for ever */
    for (int i = 0; i < 64 && got > 0; i++)
        pump(o, 0, &got);
}

void meshrun_output_close(meshrun_output_t *o, int timeout_ms)
{
    double end = now_ms() + timeout_ms;
    while (meshrun_output_pump(o, 20) > 0 && now_ms() < end)
        ;
    for (int i = 0; i < o->n; i++) {
        meshrun_stream_t *s = &o->streams[i];
        finish(o, s);
        if (s->fd >= 0)
            close(s->fd);
        free(s->buf);
    }
    free(o->streams);
    free(o->scratch);
    *o = (meshrun_output_t){0};
}
