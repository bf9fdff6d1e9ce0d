/* terminal.c - the filter in front of stdout and stderr (see terminal.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "terminal.h"
#include "text.h"

/* One stream's descriptor, and the start of a character cut by a buffer's end. */
struct filter {
	int fd;
	unsigned char held[4];
	size_t nheld;
};

static struct filter out_filter = { .fd = STDOUT_FILENO }, err_filter = { .fd = STDERR_FILENO };

/* What goes out, gathered before each write(2). */
struct sink {
	int fd;
	char buf[4096];
	size_t len;
	int rc;
};

static void sink_flush(struct sink *s)
{
	size_t done = 0;

	while (!s->rc && done < s->len) {
		ssize_t n = write(s->fd, s->buf + done, s->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			s->rc = -1;
		else
			done += (size_t)n;
	}
	s->len = 0;
}

static void sink_put(struct sink *s, const void *p, size_t n)
{
	if (s->len + n > sizeof(s->buf))
		sink_flush(s);
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void sink_escape(struct sink *s, unsigned char byte)
{
	char esc[5];

	snprintf(esc, sizeof(esc), "\\x%02x", byte);
	sink_put(s, esc, 4);
}

/* Whether the n bytes at p (n shorter than the character its lead byte starts) may
 * still become a character: then they wait for the next write. */
static bool may_continue(const unsigned char *p, size_t n)
{
	size_t want = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;

	if (p[0] < 0xc2 || p[0] > 0xf4 || n >= want)
		return false;
	for (size_t i = 1; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return false;
	return true;
}

/* Escape the n bytes at p into s; with hold, keep a cut character's start in f. */
static void filter_bytes(struct filter *f, struct sink *s, const unsigned char *p, size_t n, bool hold)
{
	size_t i = 0;

	while (i < n) {
		size_t len = smpol_utf8_len(p + i, n - i);

		if (len == 0 && hold && may_continue(p + i, n - i)) {
			memcpy(f->held, p + i, n - i);
			f->nheld = n - i;
			return;
		}
		if (len == 0 || (p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') || p[i] == 0x7f) {
			sink_escape(s, p[i]);
			i++;
		} else if (p[i] == 0xc2 && p[i + 1] <= 0x9f) {
			sink_escape(s, p[i + 1]);   /* a C1 control: U+009B is CSI to some terminals */
			i += 2;
		} else {
			sink_put(s, p + i, len);
			i += len;
		}
	}
}

static ssize_t filter_write(void *cookie, const char *buf, size_t size)
{
	struct filter *f = cookie;
	struct sink s = { .fd = f->fd };
	unsigned char *joined = NULL;
	const unsigned char *p = (const unsigned char *)buf;
	size_t n = size;

	if (f->nheld) {
		joined = malloc(f->nheld + size);
		if (!joined)
			return -1;
		memcpy(joined, f->held, f->nheld);
		memcpy(joined + f->nheld, buf, size);
		p = joined;
		n += f->nheld;
		f->nheld = 0;
	}
	filter_bytes(f, &s, p, n, true);
	sink_flush(&s);
	free(joined);
	return s.rc ? -1 : (ssize_t)size;
}

/* At exit: what is still held is no character. */
static void filter_finish(void)
{
	struct filter *filters[] = { &out_filter, &err_filter };

	fflush(stdout);
	fflush(stderr);
	for (size_t i = 0; i < sizeof(filters) / sizeof(filters[0]); i++) {
		struct sink s = { .fd = filters[i]->fd };
		size_t n = filters[i]->nheld;

		filters[i]->nheld = 0;
		filter_bytes(filters[i], &s, filters[i]->held, n, false);
		sink_flush(&s);
	}
}

static FILE *filtered(struct filter *f)
{
	cookie_io_functions_t io = { .write = filter_write };
	FILE *stream = fopencookie(f, "w", io);

	if (stream)
		setvbuf(stream, NULL, _IOLBF, BUFSIZ);
	return stream;
}

void terminal_filter_install(void)
{
	FILE *out = filtered(&out_filter), *err = filtered(&err_filter);

	/* without memory for a stream, the output is as before rather than none */
	if (out)
		stdout = out;
	if (err)
		stderr = err;
	atexit(filter_finish);
}
