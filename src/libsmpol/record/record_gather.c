/* record_gather.c - a step's record collector on a unix socket (see record_gather.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "error.h"
#include "record_gather.h"
#include "statedir.h"

/* A sender that connected has this long to deliver its bytes. */
#define SEND_TIMEOUT_MS 2000
#define NAME_MAX_LEN 255

struct smpol_gather {
	int fd;
	uint32_t job;
	char step[32];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	bool linked;            /* path still names our socket */
};

int smpol_gather_path(const struct smpol_host *h, uint32_t job, const char *step, char *buf, size_t len,
		      char *err, size_t errlen)
{
	size_t max = sizeof(((struct sockaddr_un *)0)->sun_path);

	if (snprintf(buf, len, "%s/gather/%u.%s.sock", h->statedir, job, step) >= (int)(len < max ? len : max))
		return smpol_fail(err, errlen, ENAMETOOLONG,
				 "the state directory %s is too long for the record collector's socket "
				 "(unix sockets take %zu bytes); the nodes write their entries themselves",
				 h->statedir, max - 1);
	return 0;
}

int smpol_gather_open(const struct smpol_host *h, uint32_t job, const char *step, struct smpol_gather **gp,
		      char *err, size_t errlen)
{
	struct smpol_gather *g = calloc(1, sizeof(*g));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[SMPOL_HOST_PATH_MAX + 16];
	struct stat st;
	int rc;

	*gp = NULL;
	if (!g)
		return smpol_fail(err, errlen, ENOMEM, "out of memory starting the record collector");
	g->fd = -1;
	g->job = job;
	snprintf(g->step, sizeof(g->step), "%s", step);
	rc = smpol_gather_path(h, job, step, g->path, sizeof(g->path), err, errlen);
	if (rc < 0)
		goto fail;
	snprintf(dir, sizeof(dir), "%s/gather", h->statedir);
	rc = smpol_statedir_mkdir(h, "gather", err, errlen);
	if (rc < 0)
		goto fail;
	/* only root may pass: a directory someone else made is not trusted */
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		rc = smpol_fail(err, errlen, EPERM, "%s is not a directory that only this user can enter "
			       "(owner %u, mode %o); the nodes write their entries themselves",
			       dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		goto fail;
	}
	g->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (g->fd < 0) {
		rc = smpol_fail(err, errlen, errno, "cannot create the record collector's socket: %s", strerror(errno));
		goto fail;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", g->path);
	unlink(g->path);        /* a step of this id that died left it */
	if (bind(g->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(g->fd, 128) < 0) {
		rc = smpol_fail(err, errlen, errno, "cannot listen on %s: %s", g->path, strerror(errno));
		goto fail;
	}
	g->linked = true;
	*gp = g;
	return 0;
fail:
	if (g->fd >= 0)
		close(g->fd);
	free(g);
	return rc;
}

int smpol_gather_fd(const struct smpol_gather *g)
{
	return g->fd;
}

/* Read exactly len bytes, waiting at most SEND_TIMEOUT_MS for each part. A signal
 * restarts the wait: slurmstepd's threads all get glibc's setxid signal whenever it
 * changes ids, and a sender cut off then has its entries lost, since slurmd already
 * told it they were delivered. */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int ready;

		do
			ready = poll(&pfd, 1, SEND_TIMEOUT_MS);
		while (ready < 0 && errno == EINTR);
		if (ready <= 0)
			return -ETIMEDOUT;
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static bool printable_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > NAME_MAX_LEN)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x21 || *s == 0x7f)
			return false;
	return true;
}

/* Does the entry read back as itself from its own text? A sender's odd spellings
 * (numbers like 000e, bytes that are not UTF-8) would not survive being written into
 * the record and read again, so they are refused here, not later. */
static bool round_trips(json_object *entry)
{
	const char *once = json_object_to_json_string_ext(entry, JSON_C_TO_STRING_PLAIN);
	json_object *again = json_tokener_parse(once);
	bool same = again && !strcmp(json_object_to_json_string_ext(again, JSON_C_TO_STRING_PLAIN), once);

	json_object_put(again);
	return same;
}

/* Why one node's entry in a message cannot be taken, or NULL when it can. */
static const char *entry_refusal(const char *node, json_object *entry)
{
	if (!printable_name(node))
		return "names no usable node (empty, too long, or with blanks or control characters)";
	if (!json_object_is_type(entry, json_type_object))
		return "holds an entry that is not an object";
	if (!round_trips(entry))
		return "is not plain JSON (an entry does not read back as itself)";
	return NULL;
}

int smpol_gather_parse(uint32_t want_job, const char *want_step, const char *text, json_object *entries,
		       char *err, size_t errlen)
{
	json_object *msg = json_tokener_parse(text), *job, *step, *sent;
	const char *why = NULL;
	int rc = 0;

	if (!msg || !json_object_is_type(msg, json_type_object) ||
	    !json_object_object_get_ex(msg, "job", &job) || !json_object_is_type(job, json_type_int) ||
	    !json_object_object_get_ex(msg, "step", &step) || !json_object_is_type(step, json_type_string) ||
	    !json_object_object_get_ex(msg, "entries", &sent) || !json_object_is_type(sent, json_type_object)) {
		rc = smpol_fail(err, errlen, EBADMSG, "a record message sent to the collector of job %u step %s "
			       "is not {\"job\",\"step\",\"entries\"}", want_job, want_step);
		goto out;
	}
	if (json_object_get_int64(job) != want_job || strcmp(json_object_get_string(step), want_step)) {
		rc = smpol_fail(err, errlen, EBADMSG, "a record message for job %lld step %.32s reached the "
			       "collector of job %u step %s; dropped", (long long)json_object_get_int64(job),
			       json_object_get_string(step), want_job, want_step);
		goto out;
	}
	if (json_object_object_length(sent) == 0)
		why = "holds no entry";
	json_object_object_foreach(sent, node, entry) {
		if (!why)
			why = entry_refusal(node, entry);
	}
	if (why) {
		rc = smpol_fail(err, errlen, EBADMSG, "a record message for job %u step %s %s; dropped whole",
			       want_job, want_step, why);
		goto out;
	}
	json_object_object_foreach(sent, name, one)
		json_object_object_add(entries, name, json_object_get(one));
out:
	json_object_put(msg);
	return rc;
}

int smpol_gather_accept(struct smpol_gather *g, json_object *entries, char *err, size_t errlen)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	uint32_t head[2];
	char *text = NULL;
	int c, rc;

	c = accept4(g->fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -EAGAIN :
		       smpol_fail(err, errlen, errno, "the record collector cannot accept: %s", strerror(errno));
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0 || cred.uid != 0) {
		rc = smpol_fail(err, errlen, EPERM, "the record collector of job %u step %s refused a "
			       "connection from uid %d (only root's slurmd may deliver)", g->job, g->step,
			       clen == sizeof(cred) ? (int)cred.uid : -1);
		goto out;
	}
	rc = read_all(c, head, sizeof(head));
	if (rc < 0) {
		rc = smpol_fail(err, errlen, EBADMSG, "a sender to the record collector of job %u step %s stopped "
			       "before its header: %s", g->job, g->step, strerror(-rc));
		goto out;
	}
	if (ntohl(head[0]) != 0) {
		rc = smpol_fail(err, errlen, EPERM, "the record collector of job %u step %s refused data that uid "
			       "%u sent (only root's may count)", g->job, g->step, ntohl(head[0]));
		goto out;
	}
	if (ntohl(head[1]) == 0 || ntohl(head[1]) > SMPOL_GATHER_MAX) {
		rc = smpol_fail(err, errlen, EBADMSG, "a record entry of %u bytes reached the collector of job %u "
			       "step %s (at most %d); dropped", ntohl(head[1]), g->job, g->step, SMPOL_GATHER_MAX);
		goto out;
	}
	text = malloc(ntohl(head[1]) + 1);
	if (!text) {
		rc = smpol_fail(err, errlen, ENOMEM, "out of memory receiving a record entry");
		goto out;
	}
	rc = read_all(c, text, ntohl(head[1]));
	if (rc < 0) {
		rc = smpol_fail(err, errlen, EBADMSG, "a sender to the record collector of job %u step %s stopped "
			       "after its header: %s", g->job, g->step, strerror(-rc));
		goto out;
	}
	text[ntohl(head[1])] = '\0';
	rc = smpol_gather_parse(g->job, g->step, text, entries, err, errlen);
out:
	free(text);
	close(c);
	return rc;
}

void smpol_gather_stop(struct smpol_gather *g)
{
	/* new connects fail with ENOENT from here on; queued ones stay acceptable */
	if (g && g->linked && unlink(g->path) == 0)
		g->linked = false;
}

void smpol_gather_close(struct smpol_gather *g)
{
	if (!g)
		return;
	smpol_gather_stop(g);
	close(g->fd);
	free(g);
}

char *smpol_gather_message(uint32_t job, const char *step, json_object *entries)
{
	json_object *msg = json_object_new_object();
	char *text;

	if (!msg)
		return NULL;
	json_object_object_add(msg, "job", json_object_new_int64(job));
	json_object_object_add(msg, "step", json_object_new_string(step));
	json_object_object_add(msg, "entries", json_object_get(entries));
	text = strdup(json_object_to_json_string_ext(msg, JSON_C_TO_STRING_PLAIN));
	json_object_put(msg);
	return text;
}

uint32_t smpol_gather_fanout(uint32_t nnodes)
{
	uint32_t k = 2;

	while (k < SMPOL_GATHER_FANOUT_MAX && (uint64_t)k * k < nnodes)
		k++;
	return k;
}

uint32_t smpol_gather_parent(uint32_t node, uint32_t nnodes)
{
	return node == 0 ? 0 : (node - 1) / smpol_gather_fanout(nnodes);
}

uint32_t smpol_gather_children(uint32_t node, uint32_t nnodes)
{
	uint64_t k = smpol_gather_fanout(nnodes), first = (uint64_t)node * k + 1, last = first + k - 1;

	if (first >= nnodes)
		return 0;
	return (uint32_t)((last < nnodes ? last : nnodes - 1) - first + 1);
}

uint32_t smpol_gather_subtree(uint32_t node, uint32_t nnodes)
{
	uint64_t k = smpol_gather_fanout(nnodes), first = node, last = node, n = 0;

	/* level by level: a node's children are k*i+1 .. k*i+k */
	while (first < nnodes) {
		n += (last < nnodes ? last : nnodes - 1) - first + 1;
		first = first * k + 1;
		last = last * k + k;
	}
	return (uint32_t)n;
}

uint32_t smpol_gather_depth(uint32_t node, uint32_t nnodes)
{
	uint32_t d = 0;

	for (; node > 0; node = smpol_gather_parent(node, nnodes))
		d++;
	return d;
}

int smpol_gather_send_local(const char *path, const char *message, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint32_t head[2] = { htonl((uint32_t)geteuid()), htonl((uint32_t)strlen(message)) };
	size_t len = strlen(message);
	int fd, rc = 0;

	if (strlen(path) >= sizeof(sa.sun_path))
		return smpol_fail(err, errlen, ENAMETOOLONG, "the collector's socket path %s is too long", path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return smpol_fail(err, errlen, errno, "cannot create a socket: %s", strerror(errno));
	errno = 0;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    write(fd, head, sizeof(head)) != (ssize_t)sizeof(head) || write(fd, message, len) != (ssize_t)len)
		rc = smpol_fail(err, errlen, errno ? errno : EIO, "cannot deliver to the collector at %s: %s", path,
			       strerror(errno ? errno : EIO));
	close(fd);
	return rc;
}
