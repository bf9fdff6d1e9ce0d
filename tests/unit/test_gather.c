/* test_gather.c - a step's record collector: what it takes from whom, what it drops;
 * the spool of records waiting for slurmctld; text from a record made safe to print. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "record_gather.h"
#include "record_spool.h"
#include "text.h"

struct fx {
	char dir[64];
	struct smpol_host host;
	struct smpol_gather *g;
	char path[128];
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char err[SMPOL_ERRLEN];

	snprintf(fx->dir, sizeof(fx->dir), "/tmp/test_gather.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	assert_int_equal(smpol_host_default(&fx->host), 0);
	assert_int_equal(smpol_host_set_statedir(&fx->host, fx->dir, err, sizeof(err)), 0);
	assert_int_equal(smpol_gather_open(&fx->host, 42, "0", &fx->g, err, sizeof(err)), 0);
	assert_int_equal(smpol_gather_path(&fx->host, 42, "0", fx->path, sizeof(fx->path), err, sizeof(err)), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;
	char cmd[128];

	smpol_gather_close(fx->g);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
	assert_int_equal(system(cmd), 0);
	smpol_host_free(&fx->host);
	free(fx);
	return 0;
}

static int accept_one(struct fx *fx, json_object *entries, char *err, size_t errlen)
{
	return smpol_gather_accept(fx->g, entries, err, errlen);
}

/* Send raw bytes as slurmd would: header uid and length, then the data. */
static void send_raw(const char *path, uint32_t uid, uint32_t len, const char *data, size_t n)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint32_t head[2] = { htonl(uid), htonl(len) };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(write(fd, head, sizeof(head)), (ssize_t)sizeof(head));
	if (n)
		assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
}

static void test_takes_entries(void **state)
{
	struct fx *fx = *state;
	json_object *entries = json_object_new_object(), *entry = json_tokener_parse("{\"tasks\":2}");
	char err[SMPOL_ERRLEN], *msg;

	if (geteuid() != 0)
		skip();         /* only root's deliveries count; the collector runs as root */
	assert_int_equal(accept_one(fx, entries, err, sizeof(err)), -EAGAIN);
	for (int i = 0; i < 3; i++) {
		json_object *one = json_object_new_object();
		char node[16];

		snprintf(node, sizeof(node), "node%d", i);
		json_object_object_add(one, node, json_object_get(entry));
		msg = smpol_gather_message(42, "0", one);
		assert_int_equal(smpol_gather_send_local(fx->path, msg, err, sizeof(err)), 0);
		free(msg);
		json_object_put(one);
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(accept_one(fx, entries, err, sizeof(err)), 0);
	assert_int_equal(json_object_object_length(entries), 3);
	assert_true(json_object_equal(json_object_object_get(entries, "node1"), entry));
	/* a node with children hands on its subtree's entries in one message */
	msg = smpol_gather_message(42, "0", entries);
	json_object_put(entries);
	entries = json_object_new_object();
	assert_int_equal(smpol_gather_send_local(fx->path, msg, err, sizeof(err)), 0);
	free(msg);
	assert_int_equal(accept_one(fx, entries, err, sizeof(err)), 0);
	assert_int_equal(json_object_object_length(entries), 3);
	assert_true(json_object_equal(json_object_object_get(entries, "node2"), entry));
	/* stopped: a new sender cannot connect and knows it */
	smpol_gather_stop(fx->g);
	msg = smpol_gather_message(42, "0", entries);
	assert_int_equal(smpol_gather_send_local(fx->path, msg, err, sizeof(err)), -ENOENT);
	free(msg);
	json_object_put(entries);
	json_object_put(entry);
}

/* What a sender cannot make the collector take. */
static void test_refuses(void **state)
{
	struct fx *fx = *state;
	json_object *entries = json_object_new_object(), *entry = json_tokener_parse("{\"tasks\":1}");
	const struct { const char *msg; const char *why; } bad[] = {
		{ "{\"job\":43,\"step\":\"0\",\"entries\":{\"n1\":{}}}", "job 43" },
		{ "{\"job\":42,\"step\":\"1\",\"entries\":{\"n1\":{}}}", "step 1" },
		{ "{\"job\":42,\"step\":\"0\",\"entries\":{\"n1\":{},\"n\\u001b[2J\":{}}}", "control characters" },
		{ "{\"job\":42,\"step\":\"0\",\"entries\":{\"\":{}}}", "no usable node" },
		{ "{\"job\":42,\"step\":\"0\",\"entries\":{\"n1\":[1]}}", "not an object" },
		{ "{\"job\":42,\"step\":\"0\",\"entries\":{}}", "no entry" },
		{ "{\"job\":42,\"step\":\"0\",\"node\":\"n1\",\"entry\":{}}", "is not" },
		{ "not json", "is not" },
		/* json-c takes 000e, but would not read the record it lands in back the same */
		{ "{\"job\":42,\"step\":\"0\",\"entries\":{\"n1\":{\"a\":000e}}}", "not plain JSON" },
	};
	char err[SMPOL_ERRLEN];

	if (geteuid() != 0)
		skip();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		send_raw(fx->path, 0, (uint32_t)strlen(bad[i].msg), bad[i].msg, strlen(bad[i].msg));
		assert_int_equal(accept_one(fx, entries, err, sizeof(err)), -EBADMSG);
		assert_non_null(strstr(err, bad[i].why));
	}
	/* data slurmd says another uid sent */
	send_raw(fx->path, 1000, 2, "{}", 2);
	assert_int_equal(accept_one(fx, entries, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "uid 1000"));
	/* a length past the limit is refused before anything is read */
	send_raw(fx->path, 0, SMPOL_GATHER_MAX + 1, NULL, 0);
	assert_int_equal(accept_one(fx, entries, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "at most"));
	/* a sender that stops short */
	send_raw(fx->path, 0, 100, "{\"job\"", 6);
	assert_int_equal(accept_one(fx, entries, err, sizeof(err)), -EBADMSG);
	assert_int_equal(json_object_object_length(entries), 0);
	json_object_put(entries);
	json_object_put(entry);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal while the collector waits for a connected sender's data (slurmstepd's
 * threads get glibc's setxid signal) does not cut the sender off: slurmd has told it
 * its entries were delivered. */
static void test_signal_while_reading(void **state)
{
	struct fx *fx = *state;
	struct sigaction sa = { .sa_handler = on_alarm }, old;     /* no SA_RESTART: poll sees EINTR */
	struct itimerval tick = { .it_value = { .tv_usec = 100000 } };
	const char *msg = "{\"job\":42,\"step\":\"0\",\"entries\":{\"n1\":{\"tasks\":1}}}";
	json_object *entries = json_object_new_object();
	char err[SMPOL_ERRLEN];
	int status;
	pid_t child;

	if (geteuid() != 0)
		skip();
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };
		uint32_t head[2] = { htonl(0), htonl((uint32_t)strlen(msg)) };
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		snprintf(sun.sun_path, sizeof(sun.sun_path), "%.107s", fx->path);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
			_exit(1);
		usleep(400000);         /* after the collector's wait was interrupted */
		_exit(write(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
		      write(fd, msg, strlen(msg)) == (ssize_t)strlen(msg) ? 0 : 1);
	}
	assert_int_equal(poll(&(struct pollfd){ .fd = smpol_gather_fd(fx->g), .events = POLLIN }, 1, 5000), 1);
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	assert_int_equal(setitimer(ITIMER_REAL, &tick, NULL), 0);
	assert_int_equal(accept_one(fx, entries, err, sizeof(err)), 0);
	sigaction(SIGALRM, &old, NULL);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_non_null(json_object_object_get(entries, "n1"));
	json_object_put(entries);
}

static void test_spool(void **state)
{
	struct fx *fx = *state;
	json_object *a = json_tokener_parse("{\"n1\":{\"tasks\":1}}"), *b = json_tokener_parse("{\"n2\":{\"tasks\":2}}");
	json_object *lost = json_tokener_parse("{\"n1\":null,\"n3\":null}"), *got = NULL, *v;
	char err[SMPOL_ERRLEN], step[32], **names, path[200];
	struct smpol_record_run job = { 0 }, j7 = { 7, 0, 1700000000 }, j8 = { 8, 0, 0 }, j7again = { 7, 2, 1700000900 };
	int n, dropped;
	FILE *f;

	assert_int_equal(smpol_spool_list(&fx->host, &names, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	free(names);
	assert_int_equal(smpol_spool_count(&fx->host, &n, err, sizeof(err)), 0);   /* no spool yet */
	assert_int_equal(n, 0);
	assert_int_equal(smpol_spool_put(&fx->host, &j7, "0", a, SMPOL_STATEDIR_DURABLE, &dropped, err, sizeof(err)), 0);
	/* a second writer of the same step: both entries kept */
	assert_int_equal(smpol_spool_put(&fx->host, &j7, "0", b, SMPOL_STATEDIR_VOLATILE, &dropped, err, sizeof(err)), 0);
	/* a writer without n1's entry (record_missing.h) does not hide it; n3 stays missing */
	assert_int_equal(smpol_spool_put(&fx->host, &j7, "0", lost, SMPOL_STATEDIR_DURABLE, &dropped, err, sizeof(err)), 0);
	assert_int_equal(smpol_spool_put(&fx->host, &j8, "batch", a, SMPOL_STATEDIR_VOLATILE, &dropped, err, sizeof(err)), 0);
	/* the same step of the job's third run (requeued twice) is a record of its own */
	assert_int_equal(smpol_spool_put(&fx->host, &j7again, "0", a, SMPOL_STATEDIR_DURABLE, &dropped, err, sizeof(err)), 0);
	assert_int_equal(smpol_spool_count(&fx->host, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(smpol_spool_list(&fx->host, &names, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "7.0");         /* oldest first */
	assert_int_equal(smpol_spool_get(&fx->host, names[0], &job, step, sizeof(step), &got, err, sizeof(err)), 0);
	assert_int_equal(job.job, 7);
	assert_int_equal(job.run, 0);
	assert_int_equal(job.started, 1700000000);
	assert_string_equal(step, "0");
	assert_int_equal(json_object_object_length(got), 3);
	assert_true(json_object_object_get_ex(got, "n1", &v) && json_object_is_type(v, json_type_object));
	assert_true(json_object_object_get_ex(got, "n3", &v) && !v);
	json_object_put(got);
	assert_string_equal(names[2], "7.0.run2");
	assert_int_equal(smpol_spool_get(&fx->host, names[2], &job, step, sizeof(step), &got, err, sizeof(err)), 0);
	assert_int_equal(job.run, 2);
	assert_int_equal(job.started, 1700000900);
	assert_int_equal(json_object_object_length(got), 1);
	json_object_put(got);
	assert_int_equal(smpol_spool_remove(&fx->host, "7.0.run2", err, sizeof(err)), 0);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	/* a file of an earlier release (no run, no start): run 0, start unknown */
	snprintf(path, sizeof(path), "%s/spool/6.0.json", fx->dir);
	f = fopen(path, "w");
	fputs("{\"job\":6,\"step\":\"0\",\"entries\":{\"n1\":{}}}", f);
	fclose(f);
	assert_int_equal(smpol_spool_get(&fx->host, "6.0", &job, step, sizeof(step), &got, err, sizeof(err)), 0);
	assert_int_equal(job.job, 6);
	assert_int_equal(job.run, 0);
	assert_int_equal(job.started, 0);
	json_object_put(got);
	unlink(path);
	/* set aside: out of the list, still on disk for the admin */
	assert_int_equal(smpol_spool_set_aside(&fx->host, "8.batch", err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/spool/8.batch.json.undelivered", fx->dir);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(smpol_spool_count(&fx->host, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);                         /* 7.0 */
	assert_int_equal(smpol_spool_remove(&fx->host, "7.0", err, sizeof(err)), 0);
	assert_int_equal(smpol_spool_get(&fx->host, "7.0", &job, step, sizeof(step), &got, err, sizeof(err)), -ENOENT);
	/* a damaged file is named, not taken */
	snprintf(path, sizeof(path), "%s/spool/9.0.json", fx->dir);
	f = fopen(path, "w");
	fputs("{\"job\":\"nine\"}", f);
	fclose(f);
	assert_int_equal(smpol_spool_get(&fx->host, "9.0", &job, step, sizeof(step), &got, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "9.0.json"));
	unlink(path);
	/* a FIFO is named, not waited on (the alarm fails a reader that blocks) */
	assert_int_equal(mkfifo(path, 0600), 0);
	alarm(10);
	assert_int_equal(smpol_spool_get(&fx->host, "9.0", &job, step, sizeof(step), &got, err, sizeof(err)), -EBADMSG);
	alarm(0);
	assert_non_null(strstr(err, "not a regular file"));
	unlink(path);
	/* bounded: the oldest go */
	for (uint32_t j = 100; j < 100 + SMPOL_SPOOL_MAX + 2; j++)
		assert_int_equal(smpol_spool_put(&fx->host, &(struct smpol_record_run){ j, 0, 0 }, "0", a,
						 SMPOL_STATEDIR_DURABLE, &dropped, err, sizeof(err)), 0);
	assert_int_equal(smpol_spool_list(&fx->host, &names, &n, err, sizeof(err)), 0);
	assert_int_equal(n, SMPOL_SPOOL_MAX);
	assert_string_equal(names[n - 1], "357.0");
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	json_object_put(a);
	json_object_put(b);
	json_object_put(lost);
}

/* The job and run a spooled record's name says: what smpol_spool_name writes, and no
 * other name. */
static void test_spool_name_run(void **state)
{
	struct smpol_record_run run = { 0 }, cases[] = { { 7, 0, 0 }, { 7, 2, 0 }, { 4294967295u, 4294967295u, 0 } };
	const char *bad[] = { "", "7", ".0", "x.0", "7.", "7.0.run", "7.0.runx", "7.0.run4294967296",
			      "4294967296.0", "-7.0" };
	char name[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		smpol_spool_name(&cases[i], "batch", name, sizeof(name));
		assert_int_equal(smpol_spool_name_run(name, &run), 0);
		assert_int_equal(run.job, cases[i].job);
		assert_int_equal(run.run, cases[i].run);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(smpol_spool_name_run(bad[i], &run), -EINVAL);
}

/* The fan-in tree: every node reaches node 0, a parent has at most k children, the
 * subtrees add up, and no tree is deeper than two levels up to 4096 nodes. */
static void test_tree(void **state)
{
	static const uint32_t sizes[] = { 2, 3, 4, 5, 16, 17, 100, 1000, 4096, 4097, 20000 };

	(void)state;
	assert_int_equal(smpol_gather_fanout(2), 2);
	assert_int_equal(smpol_gather_fanout(16), 4);
	assert_int_equal(smpol_gather_fanout(17), 5);
	assert_int_equal(smpol_gather_fanout(1000), 32);
	assert_int_equal(smpol_gather_fanout(100000), SMPOL_GATHER_FANOUT_MAX);
	/* 16 nodes: 0 <- 1..4, 1 <- 5..8, 2 <- 9..12, 3 <- 13..15 */
	assert_int_equal(smpol_gather_parent(4, 16), 0);
	assert_int_equal(smpol_gather_parent(5, 16), 1);
	assert_int_equal(smpol_gather_parent(15, 16), 3);
	assert_int_equal(smpol_gather_subtree(0, 16), 16);
	assert_int_equal(smpol_gather_subtree(1, 16), 5);
	assert_int_equal(smpol_gather_subtree(3, 16), 4);
	assert_int_equal(smpol_gather_subtree(4, 16), 1);
	assert_int_equal(smpol_gather_subtree(1, 2), 1);
	assert_int_equal(smpol_gather_children(0, 16), 4);
	assert_int_equal(smpol_gather_children(3, 16), 3);
	assert_int_equal(smpol_gather_children(4, 16), 0);
	assert_int_equal(smpol_gather_children(0, 2), 1);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint32_t n = sizes[s], k = smpol_gather_fanout(n), *children = calloc(n, sizeof(*children));
		uint64_t below = 0;

		assert_non_null(children);
		for (uint32_t i = 1; i < n; i++) {
			uint32_t p = smpol_gather_parent(i, n);

			assert_true(p < i);
			children[p]++;
			assert_true(smpol_gather_depth(i, n) <= (n <= 4096 ? 2u : 3u));
		}
		for (uint32_t i = 0; i < n; i++) {
			assert_true(children[i] <= k);
			assert_int_equal(smpol_gather_children(i, n), children[i]);
			below += smpol_gather_subtree(i, n) - 1;       /* counts each node once per ancestor */
		}
		for (uint32_t i = 1; i < n; i++)
			below -= smpol_gather_depth(i, n);
		assert_int_equal(below, 0);
		assert_int_equal(smpol_gather_subtree(0, n), n);
		free(children);
	}
}

static void test_paths(void **state)
{
	struct smpol_host h;
	char err[SMPOL_ERRLEN], buf[200], longdir[120];

	(void)state;
	assert_int_equal(smpol_host_default(&h), 0);
	memset(longdir, 'x', sizeof(longdir) - 1);
	longdir[0] = '/';
	longdir[sizeof(longdir) - 1] = '\0';
	assert_int_equal(smpol_host_set_statedir(&h, longdir, err, sizeof(err)), 0);
	/* a unix socket path holds 107 bytes: the nodes then write themselves, and say why */
	assert_int_equal(smpol_gather_path(&h, 1, "0", buf, sizeof(buf), err, sizeof(err)), -ENAMETOOLONG);
	assert_non_null(strstr(err, "write their entries themselves"));
	smpol_host_free(&h);
}

static void test_printable(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(smpol_text_printable("node07", buf, sizeof(buf)), "node07");
	assert_string_equal(smpol_text_printable("a\033[2Jb", buf, sizeof(buf)), "a\\e[2Jb");
	assert_string_equal(smpol_text_printable("x\ny\t\\z\x7f", buf, sizeof(buf)), "x\\ny\\t\\\\z\\x7f");
	/* every other C0 control, not only the named ones: a bare CR rewrites the line */
	assert_string_equal(smpol_text_printable("a\rb\x01\x07\x1f", buf, sizeof(buf)), "a\\x0db\\x01\\x07\\x1f");
	/* U+009B (CSI as one character) and a plain UTF-8 letter */
	assert_string_equal(smpol_text_printable("\xc2\x9b" "31m \xc3\xa9", buf, sizeof(buf)), "\\x9b31m \xc3\xa9");
	assert_string_equal(smpol_text_printable(NULL, buf, sizeof(buf)), "");
	assert_string_equal(smpol_text_printable("0123456789abcdef", buf, 10), "012345...");
	/* bytes that are not UTF-8: a lone 0x9b (CSI to a Latin-1 terminal), a surrogate,
	 * an overlong '/', a character cut short */
	assert_string_equal(smpol_text_printable("a\x9b" "1m\xff", buf, sizeof(buf)), "a\\x9b1m\\xff");
	assert_string_equal(smpol_text_printable("\xed\xa0\x80|\xc0\xaf|\xe2\x82", buf, sizeof(buf)),
			    "\\xed\\xa0\\x80|\\xc0\\xaf|\\xe2\\x82");
	assert_string_equal(smpol_text_printable("\xe2\x82\xac \xf0\x9f\x98\x80", buf, sizeof(buf)), "\xe2\x82\xac \xf0\x9f\x98\x80");
}

static void test_utf8_len(void **state)
{
	(void)state;
	assert_int_equal(smpol_utf8_len((const unsigned char *)"a", 1), 1);
	assert_int_equal(smpol_utf8_len((const unsigned char *)"\xc3\xa9", 2), 2);
	assert_int_equal(smpol_utf8_len((const unsigned char *)"\xe2\x82\xac", 3), 3);
	assert_int_equal(smpol_utf8_len((const unsigned char *)"\xf4\x8f\xbf\xbf", 4), 4);   /* U+10FFFF */
	assert_int_equal(smpol_utf8_len((const unsigned char *)"\xe2\x82\xac", 2), 0);        /* cut short */
	assert_int_equal(smpol_utf8_len((const unsigned char *)"\x80", 1), 0);                /* continuation */
	assert_int_equal(smpol_utf8_len((const unsigned char *)"\xc1\xbf", 2), 0);            /* overlong */
	assert_int_equal(smpol_utf8_len((const unsigned char *)"\xe0\x9f\xbf", 3), 0);        /* overlong */
	assert_int_equal(smpol_utf8_len((const unsigned char *)"\xed\xa0\x80", 3), 0);        /* surrogate */
	assert_int_equal(smpol_utf8_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);    /* beyond U+10FFFF */
	assert_int_equal(smpol_utf8_len((const unsigned char *)"\xff", 1), 0);
	assert_int_equal(smpol_utf8_len((const unsigned char *)"", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_takes_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_while_reading, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool, setup, teardown),
		cmocka_unit_test(test_spool_name_run),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_utf8_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
