/* test_children.c - children follow their CPUs: slurmstepd's sampler walk over a task's
 * process tree (sample_tree.c) with real forked processes pinned by sched_setaffinity.
 *
 * This host has one NUMA node, so the decision runs on a hand-built topology that
 * puts the first two CPUs on CPU nodes 0 and 1 (each with memory): a process pinned to
 * the second CPU belongs to node 1's plan. Policies are set for real (on node 0, the
 * one the kernel has); moving pages to node 1 fails here, which the sampler reports
 * once. A region-aware step's plan for node 0 really moves pages (onto node 0).
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "task_policy.h"   /* first: <linux/mempolicy.h> before kernel.h */
#include "sample_tree.c"

/* ---- fakes ---------------------------------------------------------------- */

static char logbuf[16384];

static void log_line(const char *fmt, va_list ap)
{
	size_t off = strlen(logbuf);

	if (off + 2 < sizeof(logbuf)) {
		vsnprintf(logbuf + off, sizeof(logbuf) - off - 1, fmt, ap);
		strcat(logbuf, "\n");
	}
}

void slurm_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(fmt, ap);
	va_end(ap);
}

void slurm_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(fmt, ap);
	va_end(ap);
}

/* How many log lines mention process pid. */
static int said_about(pid_t pid)
{
	char key[32];
	int n = 0;

	snprintf(key, sizeof(key), "process %d ", (int)pid);
	for (const char *p = logbuf; (p = strstr(p, key)); p++)
		n++;
	return n;
}

static const char *line_about(pid_t pid)
{
	static char line[1024];
	char key[32];
	const char *p, *end;

	snprintf(key, sizeof(key), "process %d ", (int)pid);
	p = strstr(logbuf, key);
	if (!p)
		return "";
	end = strchr(p, '\n');
	snprintf(line, sizeof(line), "%.*s", (int)(end ? end - p : (long)strlen(p)), p);
	return line;
}

/* ---- the node: CPU a on node 0, CPU b on node 1 ------------------------------ */

enum role { TASK, ON_B, ON_A, OWN_POLICY, SPANS, GRANDCHILD, OTHER_USER, OUTSIDE, NROLES };

struct tree {
	pid_t pid[NROLES];
	int report;                    /* read end: (role, pid) as each is ready */
};

struct node {
	struct tree procs;             /* killed by teardown, whatever the case did */
	struct smpol_topology topo;
	struct smpol_node nodes[2];
	struct smpol_wi_table table;
	struct smpol_site_decision site;
	struct smpol_placement pl;
	int cpu[2];
};

static int setup(void **state)
{
	struct node *n = calloc(1, sizeof(*n));
	cpu_set_t set;
	int found = 0;

	assert_non_null(n);
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
		if (CPU_ISSET(c, &set))
			n->cpu[found++] = c;
	if (found < 2) {
		free(n);
		skip();         /* one CPU: no process can sit on another plan's CPUs */
	}
	n->topo.nodes = n->nodes;
	for (int i = 0; i < 2; i++) {
		struct smpol_node *d = &n->nodes[n->topo.nnodes++];

		d->id = i;
		d->has_cpu = d->has_memory = true;
		d->mem_total_kb = d->mem_free_kb = 1 << 20;
		d->tier = -1;
		smpol_cpus_set(&d->cpus, n->cpu[i]);
		smpol_bitmap_set(&n->topo.online, i);
		smpol_bitmap_set(&n->topo.possible, i);
	}
	smpol_site_decision_default(&n->site);
	memset(logbuf, 0, sizeof(logbuf));
	*state = n;
	return 0;
}

static void stop(struct tree *t);

static int teardown(void **state)
{
	struct node *n = *state;

	if (n->procs.pid[TASK])
		stop(&n->procs);
	smpol_placement_free(&n->pl);
	for (int i = 0; i < n->topo.nnodes; i++)
		smpol_cpus_free(&n->nodes[i].cpus);
	free(n);
	return 0;
}

/* The decision for spec on this node (no weighted interleave table: plain interleave). */
static void decide(struct node *n, const char *spec)
{
	struct smpol_place_in in = { .site = &n->site, .topo = &n->topo, .table = &n->table, .job_owns_node = true,
				     .lease = SMPOL_LEASE_NOT_HELD };
	char err[SMPOL_ERRLEN];

	assert_int_equal(smpol_spec_parse(spec, &in.spec, err, sizeof(err)), 0);
	assert_int_equal(smpol_place(&in, &n->pl), 0);
	assert_true(n->pl.active);
	assert_int_equal(n->pl.nplans, 2);
}

/* ---- the processes --------------------------------------------------------- */

static void pin(const struct node *n, bool a, bool b)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (a)
		CPU_SET(n->cpu[0], &set);
	if (b)
		CPU_SET(n->cpu[1], &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(90);
}

static void set_policy(int mode)
{
	unsigned long mask = 1;        /* node 0 */

	if (syscall(SYS_set_mempolicy, mode, &mask, 64))
		_exit(91);
}

/* Touch 2 MiB in one mapping, say who is ready, wait to be killed. */
static void ready(int fd, enum role r)
{
	size_t len = 2 << 20;
	char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int msg[2] = { r, (int)getpid() };

	if (mem == MAP_FAILED)
		_exit(92);
	memset(mem, 1, len);
	if (write(fd, msg, sizeof(msg)) != sizeof(msg))
		_exit(93);
	for (;;)
		pause();
}

static pid_t spawn(void)
{
	pid_t pid = fork();

	if (pid < 0)
		_exit(94);
	return pid;
}

/* The task (policy on node 0, pinned to CPU a) and what it starts: a child moved to CPU
 * b (with a grandchild), one left on a, one with a policy of its own, one spanning both
 * CPUs, one running as another user (root only). Beside it, a process outside the job
 * on CPU b. */
static void start(struct node *n, struct tree *t, int task_mode)
{
	int fds[2];
	pid_t task;

	assert_int_equal(pipe(fds), 0);
	memset(t->pid, 0, sizeof(t->pid));
	task = spawn();
	if (task == 0) {
		setpgid(0, 0);
		set_policy(task_mode);
		pin(n, true, false);
		if (spawn() == 0) {
			pin(n, false, true);
			if (spawn() == 0)
				ready(fds[1], GRANDCHILD);
			ready(fds[1], ON_B);
		}
		if (spawn() == 0)
			ready(fds[1], ON_A);
		if (spawn() == 0) {
			set_policy(MPOL_BIND);
			pin(n, false, true);
			ready(fds[1], OWN_POLICY);
		}
		if (spawn() == 0) {
			pin(n, true, true);
			ready(fds[1], SPANS);
		}
		if (geteuid() == 0 && spawn() == 0) {
			if (setuid(65534))
				_exit(95);
			pin(n, false, true);
			ready(fds[1], OTHER_USER);
		}
		ready(fds[1], TASK);
	}
	if (spawn() == 0) {
		pin(n, false, true);
		ready(fds[1], OUTSIDE);
	}
	close(fds[1]);
	t->report = fds[0];
	for (int want = geteuid() == 0 ? NROLES : NROLES - 1; want > 0; want--) {
		int msg[2];

		assert_int_equal(read(fds[0], msg, sizeof(msg)), sizeof(msg));
		t->pid[msg[0]] = msg[1];
	}
	assert_int_equal(t->pid[TASK], task);
}

static void stop(struct tree *t)
{
	kill(-t->pid[TASK], SIGKILL);
	if (t->pid[OUTSIDE])
		kill(t->pid[OUTSIDE], SIGKILL);
	waitpid(t->pid[TASK], NULL, 0);
	if (t->pid[OUTSIDE])
		waitpid(t->pid[OUTSIDE], NULL, 0);
	close(t->report);
	memset(t, 0, sizeof(*t));
}

static struct sample_tree *tree_for(const struct node *n)
{
	struct sample_tree_in in = { .pl = &n->pl, .topo = &n->topo, .job_id = 7, .uid = geteuid(), .step = "0" };
	struct sample_tree *t = sample_tree_new(&in);

	assert_non_null(t);
	return t;
}

static void sample(struct sample_tree *at, const struct tree *t, struct smpol_sampling *s)
{
	smpol_sampling_begin(s);
	sample_tree_sample(at, &t->pid[TASK], 1, s);
	smpol_sampling_end(s, 1);
}

/* ---- cases ----------------------------------------------------------------- */

/* A child and grandchild on CPU b (node 1's plan) are placed on it; the child left on
 * CPU a keeps its task's policy untouched; the one with a policy of its own, the one
 * running as another user and the process outside the job are left alone, each said
 * once; the child spanning both CPUs takes the combined plan, which joins the plans in
 * use. Each is logged once, not at every sample. */
static void test_children_follow_their_cpus(void **state)
{
	struct node *n = *state;
	struct smpol_sampling s;
	struct tree *tp = &n->procs;
	struct sample_tree *at;
	const struct smpol_plan *plans;
	char err[SMPOL_ERRLEN], before[sizeof(logbuf)];
	int nplans, spanning = 0;

	decide(n, "interleave");
	start(n, tp, MPOL_INTERLEAVE);
	at = tree_for(n);
	assert_int_equal(smpol_sampling_init(&s, 2, err, sizeof(err)), 0);
	sample(at, tp, &s);

	assert_int_equal(said_about(tp->pid[ON_B]), 1);
	assert_true(strstr(line_about(tp->pid[ON_B]), "unlike the policy it inherited (interleave:0)") ||
		    strstr(line_about(tp->pid[ON_B]), "not placed on its CPUs' plan"));
	assert_int_equal(said_about(tp->pid[GRANDCHILD]), 1);
	assert_int_equal(said_about(tp->pid[ON_A]), 0);
	assert_int_equal(said_about(tp->pid[TASK]), 0);
	assert_int_equal(said_about(tp->pid[OUTSIDE]), 0);
	assert_non_null(strstr(line_about(tp->pid[OWN_POLICY]), "has policy 'bind:0', not its task's 'interleave:0': "
			       "left alone"));
	if (tp->pid[OTHER_USER])
		assert_non_null(strstr(line_about(tp->pid[OTHER_USER]), "runs as uid 65534, not the job's 0: left alone"));
	assert_int_equal(said_about(tp->pid[SPANS]), 1);
	plans = sample_tree_plans(at, &nplans);
	for (int i = 0; i < nplans; i++)
		spanning += plans[i].nserved == 2;
	assert_int_equal(spanning, 1);
	assert_true(s.have_target);

	/* the next sample says nothing new: placed children are placed again quietly */
	snprintf(before, sizeof(before), "%s", logbuf);
	sample(at, tp, &s);
	assert_string_equal(logbuf, before);

	sample_tree_free(at);
	smpol_sampling_free(&s);
	stop(tp);
}

/* A region-aware step: the task keeps a local policy (preferred node 0) and its large
 * mappings take its plan; a child's large mappings are placed on its own CPUs' plan,
 * here node 0's, for real (they are there already: nothing needs moving). */
static void test_region_aware_child_is_placed(void **state)
{
	struct node *n = *state;
	struct smpol_sampling s;
	struct tree *tp = &n->procs;
	struct sample_tree *at;
	char err[SMPOL_ERRLEN];
	const char *line;
	unsigned long pages, moved, stuck;
	int placed, kept;

	decide(n, "interleave,min_region=1M");
	assert_int_equal(n->pl.regions_by, SMPOL_REGIONS_MOVE);
	start(n, tp, MPOL_PREFERRED);
	at = tree_for(n);
	assert_int_equal(smpol_sampling_init(&s, 2, err, sizeof(err)), 0);
	sample(at, tp, &s);
	line = strstr(line_about(tp->pid[ON_A]), "the plan of CPU node(s) 0, unlike the policy it inherited "
		      "(prefer:0): its memory follows nodes 0 now (");
	assert_non_null(line);
	/* its 2 MiB mapping at least (a sanitizer's own large mappings may come too): on
	 * this one-node machine already on the plan, so kept without a walk */
	assert_int_equal(sscanf(strstr(line, " now (") + 6, "%d mapping(s) placed, %d on it already, 0 by "
				"process_mbind; %lu pages, %lu moved, %lu did not move)", &placed, &kept, &pages, &moved,
				&stuck), 5);
	assert_true(kept >= 1);
	assert_int_equal(moved + stuck, 0);
	assert_non_null(strstr(line_about(tp->pid[OWN_POLICY]), "left alone"));
	sample_tree_free(at);
	smpol_sampling_free(&s);
	stop(tp);
}

/* The verdict alone: a child follows, is placed, or is left alone by its policy. */
static void test_verdicts(void **state)
{
	struct smpol_plan on1 = { .initiator = 1, .nnodes = 2, .nodes = (int[]){ 1, 3 }, .weights = (unsigned[]){ 5, 1 },
				  .shares = (double[2]){ 0 }, .bandwidth = (uint32_t[2]){ 0 },
				  .sources = (enum smpol_bw_source[2]){ 0 } };
	const char *task = "weighted interleave:0,2";

	(void)state;
	assert_int_equal(smpol_child_check("", task, &on1, false), SMPOL_CHILD_FOLLOWS);
	assert_int_equal(smpol_child_check(task, task, &on1, false), SMPOL_CHILD_REPLACE);
	assert_int_equal(smpol_child_check("weighted interleave:1,3", "weighted interleave:1,3", &on1, false),
			 SMPOL_CHILD_FOLLOWS);
	assert_int_equal(smpol_child_check("bind:0", task, &on1, false), SMPOL_CHILD_NOT_OURS);
	assert_int_equal(smpol_child_check("default", "default", &on1, false), SMPOL_CHILD_NOT_OURS);
	/* a launcher reset the policy it inherited (MPICH's hydra binding): still placed */
	assert_int_equal(smpol_child_check("default", task, &on1, false), SMPOL_CHILD_REPLACE);
	assert_int_equal(smpol_child_check("default", "prefer:1", &on1, true), SMPOL_CHILD_REPLACE);
	assert_int_equal(smpol_child_check("local", task, &on1, false), SMPOL_CHILD_NOT_OURS);
	assert_int_equal(smpol_child_check("prefer:1", "prefer:1", &on1, true), SMPOL_CHILD_REPLACE);
	assert_string_equal(smpol_child_verdict_name(SMPOL_CHILD_NOT_OURS), "not ours");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test_setup_teardown(test_children_follow_their_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_aware_child_is_placed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
