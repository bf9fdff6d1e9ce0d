/* test_plugin.c - mem_interleave.so's callbacks without a cluster.
 *
 * Links the plugin's sources with fake spank_* and slurm_* functions (messages
 * captured) and a fake placement record, then drives init -> option callback ->
 * init_post_opt -> task_init -> exit one case at a time, on a copy of a captured
 * sysfs tree. The task's policy is set for real (the kernel keeps only the nodes it
 * has) and checked with get_mempolicy.
 */
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "task_policy.h"   /* first: <linux/mempolicy.h> before kernel.h */
#include "fake_tree.h"
#include "record_step.h"
#include "statedir.h"
/* The plugin's files are included, not linked, so that each case can start from the
 * fresh per-process state a real srun or slurmstepd starts with (plugin.c's step,
 * options.c's option) and look at it. */
#include "plugin.c"
#include "release.c"
#include "options.c"
#include "local.c"
#include "step.c"
#include "task.c"
#include "preload.c"
#include "sample_regions.c"

#define NEW_KERNEL "linux-7.3-boot"
#define OLD_KERNEL "linux-6.1-boot"

/* ---- fakes ---------------------------------------------------------------- */

static struct {
	spank_context_t context;
	uint32_t job_id, step_id, task_id;
	uid_t uid;
	uint64_t job_mem_mb, step_mem_mb;
	uint32_t local_tasks;      /* S_JOB_LOCAL_TASK_COUNT; 0 = not answered */
	char *cores;
	char *step_cores;          /* S_STEP_ALLOC_CORES; NULL = not answered */
	pid_t task_pid;
	struct spank_option *registered[4];
	int nregistered;
	char env[16][2][1024];     /* the job's environment as the tasks will get it */
	int nenv;
	char log[16384];           /* every slurm_* message, one per line */
	int step_begins, task_begins, task_ends, step_ends, keeps;
	pid_t begun[4];            /* the tasks record_step_task_begin got, in order */
	bool no_sampler;           /* record_step_begin fails: the step has no sampler thread */
	const char *job_env_node_name;     /* SLURMD_NODENAME in the job's environment */
	const char *job_env_step_nodes;    /* SLURM_STEP_NODELIST in the job's environment */
	char step_nodes_seen[4096];        /* what the record was handed as the step's nodes */
	char node_name_seen[256];          /* ... and as this node's name */
	struct record_step_in placement;
	bool placement_sysfs;
	char *slurm_version;       /* S_SLURM_VERSION, NULL = not available */
	int courier_starts, courier_stops;
	char courier_args[256];    /* the plugstack arguments the courier was started with */
} fake;

/* release.c's, which slurm_api_version() of the running Slurm may change. */
extern unsigned int plugin_version;

spank_context_t spank_context(void)
{
	return fake.context;
}

const char *spank_strerror(spank_err_t err)
{
	return err == ESPANK_SUCCESS ? "success" : "fake error";
}

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	(void)sp;
	fake.registered[fake.nregistered++] = opt;
	return ESPANK_SUCCESS;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	spank_err_t rc = ESPANK_SUCCESS;
	va_list ap;

	(void)sp;
	va_start(ap, item);
	switch (item) {
	case S_JOB_ID: *va_arg(ap, uint32_t *) = fake.job_id; break;
	case S_JOB_NNODES: *va_arg(ap, uint32_t *) = 1; break;
	case S_JOB_NODEID: *va_arg(ap, uint32_t *) = 0; break;
	case S_JOB_STEPID: *va_arg(ap, uint32_t *) = fake.step_id; break;
	case S_JOB_UID: *va_arg(ap, uid_t *) = fake.uid; break;
	case S_JOB_ALLOC_MEM: *va_arg(ap, uint64_t *) = fake.job_mem_mb; break;
	case S_STEP_ALLOC_MEM: *va_arg(ap, uint64_t *) = fake.step_mem_mb; break;
	case S_JOB_ALLOC_CORES: *va_arg(ap, char **) = fake.cores; break;
	case S_STEP_ALLOC_CORES:
		if (fake.step_cores)
			*va_arg(ap, char **) = fake.step_cores;
		else
			rc = ESPANK_BAD_ARG;
		break;
	case S_JOB_LOCAL_TASK_COUNT:
		if (fake.local_tasks)
			*va_arg(ap, uint32_t *) = fake.local_tasks;
		else
			rc = ESPANK_BAD_ARG;
		break;
	case S_TASK_PID: *va_arg(ap, pid_t *) = fake.task_pid; break;
	case S_TASK_GLOBAL_ID: *va_arg(ap, uint32_t *) = fake.task_id; break;
	case S_SLURM_VERSION:
		if (fake.slurm_version)
			*va_arg(ap, char **) = fake.slurm_version;
		else
			rc = ESPANK_NOT_AVAIL;
		break;
	default: rc = ESPANK_BAD_ARG; break;
	}
	va_end(ap);
	return rc;
}

spank_err_t spank_setenv(spank_t sp, const char *var, const char *val, int overwrite)
{
	(void)sp;
	(void)overwrite;
	for (int i = 0; i < fake.nenv; i++) {
		if (!strcmp(fake.env[i][0], var)) {
			snprintf(fake.env[i][1], sizeof(fake.env[i][1]), "%s", val);
			return ESPANK_SUCCESS;
		}
	}
	snprintf(fake.env[fake.nenv][0], sizeof(fake.env[0][0]), "%s", var);
	snprintf(fake.env[fake.nenv][1], sizeof(fake.env[0][1]), "%s", val);
	fake.nenv++;
	return ESPANK_SUCCESS;
}

spank_err_t spank_unsetenv(spank_t sp, const char *var)
{
	(void)sp;
	for (int i = 0; i < fake.nenv; i++) {
		if (!strcmp(fake.env[i][0], var)) {
			memmove(fake.env[i], fake.env[i + 1], sizeof(fake.env[0]) * (size_t)(fake.nenv - i - 1));
			fake.nenv--;
			return ESPANK_SUCCESS;
		}
	}
	return ESPANK_SUCCESS;
}

/* The job's environment: what the user (or the batch script's environment) set, and
 * what the plugin set in it. */
spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	const char *val = !strcmp(var, "SLURMD_NODENAME") ? fake.job_env_node_name :
			  !strcmp(var, "SLURM_STEP_NODELIST") ? fake.job_env_step_nodes : NULL;

	(void)sp;
	for (int i = 0; i < fake.nenv && !val; i++)
		if (!strcmp(fake.env[i][0], var))
			val = fake.env[i][1];
	if (!val)
		return ESPANK_ENV_NOEXIST;
	if (strlen(val) >= (size_t)len)
		return ESPANK_NOSPACE;
	snprintf(buf, (size_t)len, "%s", val);
	return ESPANK_SUCCESS;
}

static void log_line(const char *level, const char *fmt, va_list ap)
{
	size_t off = strlen(fake.log);

	off += (size_t)snprintf(fake.log + off, sizeof(fake.log) - off, "%s: ", level);
	if (off < sizeof(fake.log))
		off += (size_t)vsnprintf(fake.log + off, sizeof(fake.log) - off, fmt, ap);
	if (off + 1 < sizeof(fake.log))
		strcat(fake.log, "\n");
}

#define FAKE_LOG(name)                                  \
	void name(const char *fmt, ...)                 \
	{                                               \
		va_list ap;                             \
		va_start(ap, fmt);                      \
		log_line(#name, fmt, ap);               \
		va_end(ap);                             \
	}
FAKE_LOG(slurm_error)
FAKE_LOG(slurm_info)
FAKE_LOG(slurm_verbose)

/* The step's record context: any non-NULL pointer the fake hands back. */
static int fake_record;

int record_step_begin(const struct record_step_in *sp, struct record_step **rec, char *err, size_t errlen)
{
	fake.step_begins++;
	fake.placement = *sp;
	/* the step's node list and this node's name live only during the call */
	snprintf(fake.step_nodes_seen, sizeof(fake.step_nodes_seen), "%s", sp->step_nodelist ? sp->step_nodelist : "");
	snprintf(fake.node_name_seen, sizeof(fake.node_name_seen), "%s", sp->node_name ? sp->node_name : "");
	*rec = fake.no_sampler ? NULL : (struct record_step *)&fake_record;
	return fake.no_sampler ? smpol_fail(err, errlen, EAGAIN, "cannot start the placement sampler thread") : 0;
}

void record_step_task_begin(struct record_step *rec, pid_t pid)
{
	if (!rec && fake.no_sampler)
		return;
	assert_ptr_equal(rec, &fake_record);
	assert_int_equal(pid, fake.task_pid);
	assert_in_range(fake.task_begins, 0, 3);
	fake.begun[fake.task_begins++] = pid;
}

/* The sampler thread's write of the kept placement, done at once with the tasks begun
 * that live (a fake pid 0 does not). */
bool record_step_keep(struct record_step *rec, struct smpol_step_state *kept)
{
	if (!rec && fake.no_sampler)
		return false;
	assert_ptr_equal(rec, &fake_record);
	fake.keeps++;
	for (int i = 0; i < fake.task_begins; i++)
		smpol_step_state_add_task(kept, fake.begun[i], NULL, 0);
	assert_int_equal(smpol_step_state_write(&step.site.host, kept, NULL, 0), 0);
	smpol_step_state_free(kept);
	free(kept);
	return true;
}

void record_step_task_end(struct record_step *rec, pid_t pid, bool killed)
{
	(void)killed;
	assert_ptr_equal(rec, &fake_record);
	assert_int_equal(pid, fake.task_pid);
	fake.task_ends++;
}

void record_step_end(struct record_step **rec)
{
	if (*rec) {
		assert_ptr_equal(*rec, &fake_record);
		fake.step_ends++;
	}
	*rec = NULL;
}

/* slurmd's courier of spooled records (record_courier.c has its own cases in the
 * slurm tier): started with the plugstack arguments, stopped at slurmd's exit. */
void record_courier_start(int ac, char **av)
{
	fake.courier_starts++;
	for (int i = 0; i < ac; i++)
		snprintf(fake.courier_args + strlen(fake.courier_args), sizeof(fake.courier_args) - strlen(fake.courier_args),
			 "%s%s", i ? " " : "", av[i]);
}

void record_courier_stop(void)
{
	fake.courier_stops++;
}

/* ---- helpers --------------------------------------------------------------- */

struct fixture {
	char *root;                 /* temp dir: sys/ (a copy of a captured tree) and state/ */
	char fsroot_arg[4200];
	char statedir_arg[4300];
	char statedir[4200];
};

static const char *env_of(const char *var)
{
	for (int i = 0; i < fake.nenv; i++)
		if (!strcmp(fake.env[i][0], var))
			return fake.env[i][1];
	return NULL;
}

static struct fixture *fixture_new(const char *kernel)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	const char *fixtures = getenv("MPOL_TEST_FIXTURES");
	char cmd[8192];

	fx->root = fake_tree_new();
	if (!fixtures)
		fail_msg("MPOL_TEST_FIXTURES is not set (make check sets it)");
	/* A copy: the lease writes weights, and the captured tree must stay as captured. */
	snprintf(cmd, sizeof(cmd), "cp -a '%s/%s/sys' '%s/'", fixtures, kernel, fx->root);
	if (system(cmd) != 0)
		fail_msg("cannot copy the fixture %s/%s", fixtures, kernel);
	snprintf(fx->fsroot_arg, sizeof(fx->fsroot_arg), "fsroot=%s", fx->root);
	snprintf(fx->statedir, sizeof(fx->statedir), "%s/state", fx->root);
	snprintf(fx->statedir_arg, sizeof(fx->statedir_arg), "statedir=%s", fx->statedir);
	return fx;
}

static int setup(void **state)
{
	memset(&fake, 0, sizeof(fake));
	memset(&step, 0, sizeof(step));
	memset(&parsed, 0, sizeof(parsed));
	plugin_version = SLURM_VERSION_NUMBER;
	fake.job_id = 42;
	fake.step_id = 0;
	fake.uid = 1000;
	fake.task_pid = 4242;
	fake.cores = "0";
	*state = NULL;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	task_policy_reset();
	/* what a test that ended before slurm_spank_exit left */
	smpol_config_free(&step.site);
	options_free();
	if (fx) {
		fake_tree_free(fx->root);
		free(fx);
	}
	return 0;
}

/* The option callback as srun (remote 0) or slurmstepd (remote 1) calls it. */
static int give_option(const char *value, int remote)
{
	assert_int_equal(slurm_spank_init(NULL, 0, NULL), 0);
	assert_int_equal(fake.nregistered, 1);
	return fake.registered[0]->cb(fake.registered[0]->val, value, remote);
}

/* Run a callback with fd 2 going to a file; returns what it printed. */
static const char *with_stderr(int (*cb)(spank_t, int, char **), int *rc)
{
	static char out[4096];
	char path[] = "/tmp/mpol-stderr-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	*rc = cb(NULL, 0, NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, out, sizeof(out) - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return out;
}

/* slurmstepd: init, the option (when given), init_post_opt with these plugstack args. */
static void start_step(const char *option, int argc, char **argv)
{
	fake.context = S_CTX_REMOTE;
	if (option)
		assert_int_equal(give_option(option, 1), 0);
	else
		assert_int_equal(slurm_spank_init(NULL, 0, NULL), 0);
	assert_int_equal(slurm_spank_init_post_opt(NULL, argc, argv), 0);
}

/* A step that runs as without the plugin: tasks start untouched, nothing recorded. */
static void assert_step_untouched(void)
{
	const char *err;
	int rc;

	assert_false(step.active);
	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(err, "");
	assert_int_equal(fake.nenv, 0);
	assert_int_equal(task_policy(), MPOL_DEFAULT);
	assert_int_equal(slurm_spank_exit(NULL, 0, NULL), 0);
	assert_int_equal(fake.step_begins + fake.step_ends, 0);
}

/* ---- srun / sbatch side ------------------------------------------------------ */

static void test_local_accepts_and_rejects(void **state)
{
	(void)state;
	fake.context = S_CTX_LOCAL;
	assert_int_equal(give_option("verbose,weighted", 0), 0);
	assert_string_equal(fake.registered[0]->name, "mem-interleave");
	assert_int_equal(fake.registered[0]->has_arg, 1);
	/* The same value again (sbatch, then the step's env) is fine; a different one is not. */
	assert_int_equal(fake.registered[0]->cb(0, "verbose,weighted", 0), 0);
	assert_int_equal(fake.registered[0]->cb(0, "interleave", 0), -1);
	assert_non_null(strstr(fake.log, "slurm_error: mem_interleave: --mem-interleave given twice with different "
				"values ('verbose,weighted', then 'interleave')"));
	assert_int_equal(slurm_spank_init_post_opt(NULL, 0, NULL), 0);
	assert_non_null(strstr(fake.log, "slurm_verbose: mem_interleave: requesting verbose,weighted"));
}

/* The same request in other words is the same value; other weights are not. */
static void test_local_same_weights_twice(void **state)
{
	(void)state;
	fake.context = S_CTX_LOCAL;
	assert_int_equal(give_option("weighted,weights=0:3:2:1", 0), 0);
	assert_int_equal(fake.registered[0]->cb(0, "weighted,weights=2:1:0:3,nodes=0,2", 0), 0);
	assert_int_equal(parsed.spec.nweights, 3);
	assert_int_equal(fake.registered[0]->cb(0, "weighted,weights=0:3:2:2", 0), -1);
	assert_non_null(strstr(fake.log, "('weighted,weights=0:3:2:1', then 'weighted,weights=0:3:2:2')"));
}

/* srun inside an sbatch job: the job's value arrives first (environment), the step's
 * own command line then overrides it; a third, different value is still an error. */
static void test_local_step_overrides_job(void **state)
{
	(void)state;
	fake.context = S_CTX_LOCAL;
	setenv("SLURM_SPANK__SLURM_SPANK_OPTION_mem_interleave_mem_interleave", "weighted", 1);
	assert_int_equal(give_option("weighted", 0), 0);
	assert_int_equal(fake.registered[0]->cb(0, "interleave", 0), 0);
	assert_int_equal(parsed.spec.mode, SMPOL_MODE_INTERLEAVE);
	assert_int_equal(fake.registered[0]->cb(0, "auto", 0), -1);
	assert_non_null(strstr(fake.log, "given twice"));
	unsetenv("SLURM_SPANK__SLURM_SPANK_OPTION_mem_interleave_mem_interleave");
}

static void test_local_bad_value(void **state)
{
	(void)state;
	fake.context = S_CTX_ALLOCATOR;
	assert_int_equal(give_option("weighted,weights=0:0", 0), -1);
	/* One line, naming the option value and the bad part. */
	assert_non_null(strstr(fake.log, "slurm_error: mem_interleave: --mem-interleave='weighted,weights=0:0': "));
	assert_non_null(strchr(fake.log, '\n'));
	assert_null(strchr(strchr(fake.log, '\n') + 1, '\n'));
	memset(fake.log, 0, sizeof(fake.log));
	assert_int_equal(fake.registered[0]->cb(0, "sideways", 0), -1);
	assert_non_null(strstr(fake.log, "sideways"));
	assert_int_equal(fake.registered[0]->cb(0, NULL, 0), -1);
}

/* Slurm cuts a message at about 1.5 KB: a 900-character value is quoted as an
 * excerpt, so the reason stays in the line. */
static void test_local_long_value_keeps_reason(void **state)
{
	char value[1000];

	(void)state;
	fake.context = S_CTX_LOCAL;
	strcpy(value, "weighted,precision=");
	memset(value + strlen(value), '9', 900);
	value[919] = '\0';
	assert_int_equal(give_option(value, 0), -1);
	assert_non_null(strstr(fake.log, "(919 bytes): bad precision '9999"));
	assert_non_null(strstr(fake.log, "give a number above 0 and at most 1"));
	assert_true(strlen(fake.log) < 1024);
}

static void test_local_help_exits_zero(void **state)
{
	int pipefd[2], status;
	char out[8192] = "";
	ssize_t n, got = 0;
	pid_t pid;

	(void)state;
	fake.context = S_CTX_LOCAL;
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pipefd[1], 1);
		give_option("help", 0);
		_exit(99);          /* help must exit before this */
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += n;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(out, smpol_spec_usage());
}

/* ---- slurmstepd and tasks ---------------------------------------------------- */

static void test_step_weighted(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=never" };
	struct mi_step *c = &step;
	char nodes[256], line[512];
	bool has_weighted = kernel_takes_weighted();
	const char *err;
	int rc;

	fake.step_mem_mb = 512;
	/* slurmstepd's own SLURMD_NODENAME is the node; the job's copy is the user's */
	setenv("SLURMD_NODENAME", "n7", 1);
	fake.job_env_node_name = "evil\033[2J";
	fake.job_env_step_nodes = "n[7-9]";
	start_step("verbose,weighted", 3, argv);
	assert_true(c->active);
	assert_false(c->failed);
	assert_int_equal(c->pl.nplans, 2);        /* one per CPU node of the fixture */
	assert_int_equal(fake.step_begins, 1);
	assert_int_equal(fake.placement.job_id, 42);
	assert_int_equal(fake.placement.pl->nplans, 2);
	assert_false(fake.placement.sysfs_written);
	assert_string_equal(fake.node_name_seen, "n7");
	assert_string_equal(fake.step_nodes_seen, "n[7-9]");    /* a routing hint, as the job has it */
	assert_int_equal(fake.placement.node_id, 0);
	assert_int_equal(fake.placement.step_nnodes, 1);
	assert_string_equal(fake.placement.site->host.statedir, fx->statedir);
	assert_ptr_equal(fake.placement.topo, &c->topo);
	assert_int_equal(slurm_spank_task_post_fork(NULL, 0, NULL), 0);
	assert_int_equal(fake.task_begins, 1);

	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	/* This process runs on CPUs of fixture node 0, whose plan adds memory-only node 2. */
	smpol_plan_format_nodes(&c->pl.plans[0], nodes, sizeof(nodes));
	assert_string_equal(nodes, "0,2");
	assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_NODES"), "0,2");
	if (has_weighted) {
		char weights[64];

		smpol_plan_format_weights(&c->pl.plans[0], weights, sizeof(weights));
		assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_MODE"), "weighted");
		assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_WEIGHTS"), weights);
		assert_int_equal(task_policy(), MPOL_WEIGHTED_INTERLEAVE);
		snprintf(line, sizeof(line), "mem_interleave: task 0 (cpus ");
		assert_non_null(strstr(err, line));
		assert_non_null(strstr(err, "): weighted interleave nodes 0,2 weights "));
		assert_non_null(strstr(err, "(eff "));
	} else {
		assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_MODE"), "interleave");
		assert_non_null(strstr(err, "interleave nodes 0,2 (kernel refused"));
	}
	/* One line per task. */
	assert_non_null(strchr(err, '\n'));
	assert_int_equal(strchr(err, '\n')[1], '\0');

	/* The record is written when the task ends, while the job still runs. */
	assert_int_equal(slurm_spank_task_exit(NULL, 0, NULL), 0);
	assert_int_equal(fake.task_ends, 1);
	assert_int_equal(slurm_spank_exit(NULL, 0, NULL), 0);
	assert_int_equal(fake.step_ends, 1);
	assert_null(c->pl.plans);
}

/* Once every local task has started, the step keeps what its tasks, sampler, record
 * and end read: the kept placement is on the node (with the tasks: written then, once,
 * not before) and no longer in slurmstepd, and the step's own struct holds the library's parts and a few words, no
 * buffer of its own. On four nodes the step's and the option's structs and the heap the
 * step holds then stay under 4096 bytes (bench/step-state measures them by part), from
 * glibc's counters with its tcache off, as make check runs the tests (a chunk in the
 * tcache counts as held); under ASan, whose allocator they do not see, only the struct. */
static void test_step_keeps_little(void **state)
{
	struct fixture *fx = *state = fixture_new("two-socket-cxl");
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=never" };
	struct mi_step *c = &step;
	struct smpol_step_state kept;
	struct smpol_host host = { 0 };
	char err[SMPOL_ERRLEN];

	assert_true(sizeof(*c) <= sizeof(c->site) + sizeof(c->topo) + sizeof(c->pl) + 16 * sizeof(void *));
	const char *tunables = getenv("GLIBC_TUNABLES");
	size_t before;

	if (!tunables || !strstr(tunables, "glibc.malloc.tcache_count=0"))
		fail_msg("glibc's tcache is on: run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (make check does)");
	fake.local_tasks = 1;
	fake.task_pid = getpid();
	before = mallinfo2().uordblks;
	start_step("weighted", 3, argv);
	assert_true(c->active);
	assert_non_null(c->kept);
	assert_false(c->kept_written);
	assert_int_equal(smpol_step_state_read(&c->site.host, 42, 0, &kept, err, sizeof(err)), -ENOENT);
	assert_int_equal(slurm_spank_task_post_fork(NULL, 0, NULL), 0);
	assert_int_equal(c->topo.nnodes, 4);
#ifndef __SANITIZE_ADDRESS__
	assert_in_range(sizeof(step) + sizeof(parsed) + (mallinfo2().uordblks - before), 1, 4095);
#else
	(void)before;
#endif
	assert_null(c->kept);
	assert_true(c->kept_written);
	assert_int_equal(smpol_step_state_read(&c->site.host, 42, 0, &kept, err, sizeof(err)), 0);
	assert_int_equal(kept.ntasks, 1);
	assert_int_equal(kept.tasks[0].pid, getpid());
	smpol_step_state_free(&kept);
	assert_int_equal(smpol_host_copy(&host, &c->site.host), 0);   /* the step's is freed at its end */
	assert_int_equal(slurm_spank_exit(NULL, 0, NULL), 0);
	assert_int_equal(smpol_step_state_read(&host, 42, 0, &kept, err, sizeof(err)), -ENOENT);
	smpol_host_free(&host);
}

/* Another step of the same job in this test: the plugin's per-process state anew. */
static void next_step(void)
{
	fake.nregistered = 0;
	smpol_config_free(&step.site);
	options_free();
	memset(&step, 0, sizeof(step));
	memset(&parsed, 0, sizeof(parsed));
}

/* The kept placement is handed to the sampler thread to write once, when the last local
 * task is forked, with every task; where Slurm does not say how many tasks the node
 * runs, at the first. */
static void test_kept_written_with_its_tasks(void **state)
{
	struct fixture *fx = *state = fixture_new("two-socket-cxl");
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=never" };
	struct smpol_step_state kept;
	struct smpol_host host = { 0 };
	char err[SMPOL_ERRLEN];

	fake.local_tasks = 2;
	fake.task_pid = getpid();
	start_step("weighted", 3, argv);
	assert_int_equal(slurm_spank_task_post_fork(NULL, 0, NULL), 0);
	assert_int_equal(smpol_step_state_read(&step.site.host, 42, 0, &kept, err, sizeof(err)), -ENOENT);
	fake.task_pid = getppid();
	assert_int_equal(slurm_spank_task_post_fork(NULL, 0, NULL), 0);
	assert_int_equal(smpol_step_state_read(&step.site.host, 42, 0, &kept, err, sizeof(err)), 0);
	assert_int_equal(kept.ntasks, 2);
	assert_int_equal(kept.tasks[0].pid, getpid());
	assert_int_equal(kept.tasks[1].pid, getppid());
	smpol_step_state_free(&kept);
	assert_int_equal(slurm_spank_exit(NULL, 0, NULL), 0);
	assert_int_equal(fake.keeps, 1);
	next_step();
	fake.local_tasks = 0;
	fake.task_pid = getpid();
	fake.task_begins = 0;
	start_step("weighted", 3, argv);
	assert_int_equal(slurm_spank_task_post_fork(NULL, 0, NULL), 0);
	assert_int_equal(smpol_step_state_read(&step.site.host, 42, 0, &kept, err, sizeof(err)), 0);
	assert_int_equal(kept.ntasks, 1);
	smpol_step_state_free(&kept);
	assert_int_equal(slurm_spank_exit(NULL, 0, NULL), 0);
	/* no sampler thread: the step writes it itself, with its task */
	next_step();
	fake.local_tasks = 1;
	fake.no_sampler = true;
	start_step("weighted", 3, argv);
	assert_null(step.record);
	assert_int_equal(slurm_spank_task_post_fork(NULL, 0, NULL), 0);
	assert_int_equal(fake.keeps, 2);        /* none handed over: the two cases before */
	assert_int_equal(smpol_step_state_read(&step.site.host, 42, 0, &kept, err, sizeof(err)), 0);
	assert_int_equal(kept.ntasks, 1);
	assert_int_equal(kept.tasks[0].pid, getpid());
	smpol_step_state_free(&kept);
	assert_int_equal(smpol_host_copy(&host, &step.site.host), 0);   /* the step's is freed at its end */
	assert_int_equal(slurm_spank_exit(NULL, 0, NULL), 0);
	assert_int_equal(smpol_step_state_read(&host, 42, 0, &kept, err, sizeof(err)), -ENOENT);
	smpol_host_free(&host);
	fake.no_sampler = false;
}

/* The step decides with the bandwidth sources: the raw ACPI HMAT (slurmstepd is root),
 * the site's table over it, and keeps the table with its placement; a table that is
 * not this node's is logged and HMAT used. */
static void test_step_bandwidth_sources(void **state)
{
	struct fixture *fx = *state = fixture_new("linux-7.3-acpi");
	char table[4300], table_arg[4400];
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=never", table_arg };
	struct mi_step *c = &step;

	snprintf(table, sizeof(table), "%s/mem_interleave.bw", fx->root);
	snprintf(table_arg, sizeof(table_arg), "bandwidth=%s", table);
	/* no table: every pair from the raw HMAT, remote DRAM at half */
	start_step("weighted,scope=all", 3, argv);
	assert_false(c->failed);
	assert_int_equal(c->pl.plans[0].bw_source, SMPOL_BW_ACPI);
	assert_int_equal(c->pl.plans[0].bandwidth[1], 112000);
	assert_true(c->kept->bandwidth.nentries >= 6);
	assert_int_equal(slurm_spank_exit(NULL, 0, NULL), 0);
	/* the table: DRAM and CXL measured the other way round, so the plan turns round */
	fake_tree_write(fx->root, "/mem_interleave.bw",
			"smpol-bandwidth 1\nmeasured 0 0 64000 64000\nmeasured 0 1 30000 30000\n"
			"measured 0 2 224000 224000\nmeasured 1 0 30000 30000\nmeasured 1 1 64000 64000\n"
			"measured 1 2 10000 10000\n");
	next_step();
	start_step("weighted", 4, argv);
	assert_false(c->failed);
	assert_int_equal(c->pl.plans[0].bw_source, SMPOL_BW_MEASURED);
	/* the target shares follow (sysfs=never: the weights stay the table's) */
	assert_true(c->pl.plans[0].shares[0] < c->pl.plans[0].shares[1]);
	assert_int_equal(fake.placement.pl->plans[0].bw_source, SMPOL_BW_MEASURED);   /* what the record says */
	assert_int_equal(slurm_spank_exit(NULL, 0, NULL), 0);
	/* another machine's: refused, said in slurmd's log, the raw HMAT used */
	fake_tree_write(fx->root, "/mem_interleave.bw", "smpol-bandwidth 1\nnode 0 cpus=0-63 memory=yes\n");
	next_step();
	start_step("weighted", 4, argv);
	assert_false(c->failed);
	assert_int_equal(c->pl.plans[0].bw_source, SMPOL_BW_ACPI);
	assert_non_null(strstr(fake.log, "node 0 has other CPUs here than where the table was measured; HMAT is used "
				 "instead"));
	assert_int_equal(slurm_spank_exit(NULL, 0, NULL), 0);
}

static void test_step_quiet_auto(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg };
	bool has_weighted = kernel_takes_weighted();
	const char *err;
	int rc;

	start_step("auto", 2, argv);
	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(err, "");
	if (has_weighted) {
		/* auto never writes: the fixture's own table (7:7:2) is what tasks get. */
		assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_MODE"), "auto");
		assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_WEIGHTS"), "7:2");
	}
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/auto"), "true");
	slurm_spank_exit(NULL, 0, NULL);
}

/* Region-aware: the task stays local (preferred on its plan's node), its large
 * mappings are the sampler's; process_mbind named but absent here: the probe's
 * sentence says why the pages are moved instead; the kept placement says so too. */
static void test_step_region_aware(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=never", "process_mbind_nr=500",
			 "preload=/nonexistent/mem_interleave_regions.so" };
	struct smpol_step_state kept;
	char err_kept[SMPOL_ERRLEN];
	const char *err;
	int rc;

	fake.local_tasks = 1;
	fake.task_pid = getpid();
	start_step("verbose,weighted,min_region=64M", 5, argv);
	assert_false(step.failed);
	assert_int_equal(step.pl.min_region_kb, 65536);
	assert_int_equal(step.pl.regions_by, SMPOL_REGIONS_MOVE);
	assert_non_null(strstr(step.pl.note, "syscall 500 is not implemented by this kernel (no process_mbind)"));
	assert_int_equal(slurm_spank_task_post_fork(NULL, 0, NULL), 0);
	assert_int_equal(smpol_step_state_read(&step.site.host, 42, step.owner.step_id, &kept, err_kept,
					       sizeof(err_kept)), 0);
	assert_int_equal(kept.regions_by, SMPOL_REGIONS_MOVE);
	smpol_step_state_free(&kept);
	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(task_policy(), MPOL_PREFERRED);
	assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_MIN_REGION"), "64M");
	assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_NODES"), "0,2");
	assert_non_null(strstr(err, "): local on node 0; mappings >= 64M: weighted interleave nodes 0,2 weights "));
	assert_non_null(strstr(err, ", pages moved at each sample; "));
	/* without the interposer the sampler places them, and the task is told why */
	assert_non_null(strstr(err, "; the interposer /nonexistent/mem_interleave_regions.so cannot be read (No such "
			       "file or directory): large allocations are placed by the sampler\n"));
	assert_null(env_of("LD_PRELOAD"));
	assert_null(env_of(SMPOL_REGION_ENV));
	assert_int_equal(strchr(err, '\n')[1], '\0');
	slurm_spank_exit(NULL, 0, NULL);
	/* without min_region the same step interleaves the whole task */
	next_step();
	start_step("weighted", 5, argv);
	assert_int_equal(step.pl.regions_by, SMPOL_REGIONS_NONE);
	with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_int_not_equal(task_policy(), MPOL_PREFERRED);
	slurm_spank_exit(NULL, 0, NULL);
}

/* The interposer joins what the job preloads (a profiler keeps its place), with the
 * task's plan in SLURM_MEM_INTERLEAVE_REGION_POLICY; a second task adds it once; a step
 * that did not ask, or a site with preload=none, has both removed from the
 * environment it inherited. */
static void test_step_region_interposer(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char lib[4300], preload_arg[4400], joined[8800];
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=never", preload_arg };
	char *argv_none[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=never", "preload=none" };
	const char *err;
	FILE *f;
	int rc;

	snprintf(lib, sizeof(lib), "%s/mem_interleave_regions.so", fx->root);
	snprintf(preload_arg, sizeof(preload_arg), "preload=%s", lib);
	assert_non_null(f = fopen(lib, "w"));
	fclose(f);
	spank_setenv(NULL, "LD_PRELOAD", "/opt/darshan/lib/libdarshan.so libxalt_init.so", 1);
	start_step("verbose,weighted,min_region=64M", 4, argv);
	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(task_policy(), MPOL_PREFERRED);
	snprintf(joined, sizeof(joined), "/opt/darshan/lib/libdarshan.so:libxalt_init.so:%s", lib);
	assert_string_equal(env_of("LD_PRELOAD"), joined);
	/* 64 MiB, the plan's mode and nodes (region_env.h) */
	assert_string_equal(env_of(SMPOL_REGION_ENV), "67108864 weighted 0,2");
	assert_non_null(strstr(err, ", placed as they are allocated, else pages moved at each sample"));
	assert_null(strstr(err, "placed by the sampler"));
	/* the next task of the step: once */
	with_stderr(slurm_spank_task_init, &rc);
	assert_string_equal(env_of("LD_PRELOAD"), joined);
	slurm_spank_exit(NULL, 0, NULL);

	/* a step without min_region in the same environment: the job's own preloads only */
	next_step();
	start_step("weighted", 4, argv);
	with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(env_of("LD_PRELOAD"), "/opt/darshan/lib/libdarshan.so:libxalt_init.so");
	assert_null(env_of(SMPOL_REGION_ENV));
	slurm_spank_exit(NULL, 0, NULL);

	/* preload=none: the sampler's, said so; an entry of ours (moved elsewhere) goes */
	next_step();
	spank_setenv(NULL, "LD_PRELOAD", "/old/place/mem_interleave_regions.so", 1);
	spank_setenv(NULL, SMPOL_REGION_ENV, "1 weighted 0", 1);
	start_step("verbose,weighted,min_region=64M", 4, argv_none);
	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_null(env_of("LD_PRELOAD"));
	assert_null(env_of(SMPOL_REGION_ENV));
	assert_non_null(strstr(err, "the site set preload=none: large allocations are placed by the sampler\n"));
	assert_non_null(strstr(env_of("SLURM_MEM_INTERLEAVE_NOTE"), "the site set preload=none"));
	slurm_spank_exit(NULL, 0, NULL);

	/* a job that never asked: a stale policy and our entry leave, others stay */
	next_step();
	spank_setenv(NULL, "LD_PRELOAD", "libfoo_mem_interleave_regions.so:/x/mem_interleave_regions.so", 1);
	spank_setenv(NULL, SMPOL_REGION_ENV, "1 weighted 0", 1);
	start_step(NULL, 3, argv);
	with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(env_of("LD_PRELOAD"), "libfoo_mem_interleave_regions.so");
	assert_null(env_of(SMPOL_REGION_ENV));
	slurm_spank_exit(NULL, 0, NULL);
}

/* LD_PRELOAD's entries: split by spaces and colons, ours dropped wherever it sits. */
static void test_preload_list(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(preload_list("", "/l/mem_interleave_regions.so", "/l/mem_interleave_regions.so", out,
				      sizeof(out)), 0);
	assert_string_equal(out, "/l/mem_interleave_regions.so");
	assert_int_equal(preload_list(" a.so::b.so  ", "/l/r.so", NULL, out, sizeof(out)), 0);
	assert_string_equal(out, "a.so:b.so");
	assert_int_equal(preload_list("/l/r.so a.so", "/l/r.so", "/l/r.so", out, sizeof(out)), 0);
	assert_string_equal(out, "a.so:/l/r.so");
	assert_int_equal(preload_list("a.so", "/l/r.so", "/a/very/long/path/that/does/not/fit/in/the/buffer.so", out,
				      sizeof(out)), -ENOSPC);
}

/* Lines of the fake log holding `what`. */
static int log_count(const char *what)
{
	int n = 0;

	for (const char *p = fake.log; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* A child holding a touched 2 MiB mapping until it is killed; pinned into *t. */
static pid_t start_holder(struct smpol_task_ref *t)
{
	char err[SMPOL_ERRLEN];
	int fds[2];
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *p;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		p = mmap(NULL, 2 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		madvise(p, 2 << 20, MADV_NOHUGEPAGE);
		memset(p, 1, 2 << 20);
		if (write(fds[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], err, 1), 1);
	close(fds[0]);
	assert_int_equal(smpol_task_pin(pid, 0, t, err, sizeof(err)), 0);
	return pid;
}

/* The sampler's region part on a child holding a 2 MiB mapping: its plan from its
 * CPUs, the mapping placed once (or, on a machine without the plan's node 2, one
 * error logged once, not at every sample); a task that ended adds nothing. */
static void test_sampler_places_regions(void **state)
{
	struct smpol_sampling smp;
	struct smpol_numa_usage u;
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=never" };
	struct sample_regions *ar;
	struct smpol_task_ref t;
	char err[SMPOL_ERRLEN];
	pid_t pid;

	start_step("weighted,min_region=1M", 3, argv);
	assert_int_equal(step.pl.regions_by, SMPOL_REGIONS_MOVE);
	pid = start_holder(&t);
	/* a step that is not region-aware has nothing to do */
	{
		struct smpol_placement plain = step.pl;

		plain.min_region_kb = 0;
		assert_null(sample_regions_new(&plain, &step.topo, 0, 42, "0"));
	}
	ar = sample_regions_new(&step.pl, &step.topo, 0, 42, "0");
	assert_non_null(ar);
	assert_int_equal(smpol_sampling_init(&smp, 4, err, sizeof(err)), 0);
	/* a round counts only with a task's pages in it */
	smpol_numa_usage_init(&u);
	u.anon[0] = 10;
	u.max_node = 0;
	u.nprocs = 1;
	fake.log[0] = '\0';
	for (int i = 0; i < 3; i++) {
		smpol_sampling_begin(&smp);
		sample_regions_sample(ar, 0, &t, &smp);
		smpol_sampling_add(&smp, &u, step.pl.plans, step.pl.nplans, step.pl.path);
		smpol_sampling_end(&smp, i);
	}
	/* once either way: placed (and then nothing to do), or refused (and then quiet) */
	assert_int_equal(log_count("placed 1 of 1 large mapping(s) (0 by process_mbind)") +
			 log_count("large mappings not placed"), 1);
	/* the record's count: by the sampler (its pages moved), or pending (they could not
	 * move here: this machine lacks the plan's node 2); never as allocated */
	if (log_count("placed 1 of 1")) {
		assert_true(smp.have_regions);
		assert_int_equal(smp.regions.allocation, 0);
		assert_int_equal(smp.regions.sampler + smp.regions.pending, 1);
	} else {
		assert_false(smp.have_regions);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fake.log[0] = '\0';
	smpol_sampling_begin(&smp);
	sample_regions_sample(ar, 0, &t, &smp);
	assert_string_equal(fake.log, "");
	assert_false(smp.cur_have_regions);
	smpol_sampling_free(&smp);
	sample_regions_free(ar);
	sample_regions_free(NULL);
	smpol_task_unpin(&t);
	slurm_spank_exit(NULL, 0, NULL);
}

/* process_mbind that the probe passed but whose calls fail (syscall 500 is absent
 * here, as if the kernel changed its mind): the task's error once, then after 3
 * samples in a row the step's tasks get page moves instead, said once. */
static void test_sampler_pmbind_falls_back(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=never" };
	struct smpol_placement pl;
	struct smpol_sampling smp;
	struct sample_regions *ar;
	struct smpol_task_ref t;
	char err[SMPOL_ERRLEN];
	pid_t pid;

	start_step("weighted,min_region=1M", 3, argv);
	pl = step.pl;
	pl.regions_by = SMPOL_REGIONS_POLICY;
	pid = start_holder(&t);
	ar = sample_regions_new(&pl, &step.topo, 500, 42, "0");
	assert_non_null(ar);
	assert_int_equal(smpol_sampling_init(&smp, 4, err, sizeof(err)), 0);
	fake.log[0] = '\0';
	for (int i = 0; i < 3; i++)
		sample_regions_sample(ar, 0, &t, &smp);
	assert_int_equal(log_count("large mappings not placed: process_mbind over ranges"), 1);
	assert_int_equal(log_count("process_mbind failed 3 samples in a row (last: process_mbind over ranges 0-"), 1);
	assert_int_equal(log_count(" failed: Function not implemented): large mappings are placed by page moves "
				   "from now on\n"), 1);
	/* from now on: page moves (placed, or refused for node 2 this machine lacks) */
	fake.log[0] = '\0';
	sample_regions_sample(ar, 0, &t, &smp);
	sample_regions_sample(ar, 0, &t, &smp);
	assert_int_equal(log_count("process_mbind"), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	smpol_sampling_free(&smp);
	sample_regions_free(ar);
	smpol_task_unpin(&t);
	slurm_spank_exit(NULL, 0, NULL);
}

static void test_old_kernel_ladder(void **state)
{
	struct fixture *fx = *state = fixture_new(OLD_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg };
	const char *err;
	int rc;

	start_step("verbose,weighted", 2, argv);
	assert_int_equal(fake.placement.pl->path, SMPOL_PATH_INTERLEAVE);
	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_MODE"), "interleave");
	assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_WEIGHTS"), "1:1");
	assert_int_equal(task_policy(), MPOL_INTERLEAVE);
	assert_non_null(strstr(err, "interleave nodes 0,2; this kernel has no weighted interleave (needs Linux 6.9): "
				"plain interleave over the same nodes"));
	assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_NOTE"), "this kernel has no weighted interleave "
			    "(needs Linux 6.9): plain interleave over the same nodes");
	slurm_spank_exit(NULL, 0, NULL);
}

static void test_old_kernel_strict(void **state)
{
	struct fixture *fx = *state = fixture_new(OLD_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg };
	const char *err;
	int rc;

	start_step("weighted,strict", 2, argv);
	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, -1);
	assert_string_equal(err, "mem_interleave: strict: this kernel has no weighted interleave "
			    "(needs Linux 6.9); not falling back to interleave\n");
	assert_null(env_of("SLURM_MEM_INTERLEAVE_MODE"));
	assert_int_equal(task_policy(), MPOL_DEFAULT);
	slurm_spank_exit(NULL, 0, NULL);
}

static void test_no_option_default_none(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, "default=none" };

	start_step(NULL, 2, argv);
	assert_step_untouched();
}

static void test_site_default_applies(void **state)
{
	struct fixture *fx = *state = fixture_new(OLD_KERNEL);
	char *argv[] = { fx->fsroot_arg, "default=interleave" };
	int rc;

	start_step(NULL, 2, argv);
	with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_MODE"), "interleave");
	/* The user's none wins over the site's default. */
	slurm_spank_exit(NULL, 0, NULL);
	task_policy_reset();
	setup(state);
	*state = fx;
	start_step("none", 2, argv);
	assert_false(step.active);
	with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_MODE"), "none");
	assert_int_equal(task_policy(), MPOL_DEFAULT);
	slurm_spank_exit(NULL, 0, NULL);
}

static void test_bad_plugstack_spares_other_jobs(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, "bogus_key=1" };
	const char *err;
	int rc;

	start_step(NULL, 2, argv);
	assert_non_null(strstr(fake.log, "slurm_error: mem_interleave: plugstack.conf arguments: "));
	assert_non_null(strstr(fake.log, "bogus_key"));
	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(err, "");
	assert_int_equal(task_policy(), MPOL_DEFAULT);
	slurm_spank_exit(NULL, 0, NULL);
}

static void test_bad_plugstack_fails_asking_job(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, "sysfs=sometimes" };
	const char *err;
	int rc;

	start_step("weighted", 2, argv);
	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "mem_interleave: the site's plugstack.conf arguments"));
	assert_non_null(strstr(err, "sometimes"));
	assert_int_equal(task_policy(), MPOL_DEFAULT);
	slurm_spank_exit(NULL, 0, NULL);
}

static void test_node_not_on_this_machine(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg };
	const char *err;
	int rc;

	start_step("weighted,nodes=7", 1, argv);
	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "mem_interleave: node 7 is not online; nodes with memory: "));
	assert_non_null(strstr(fake.log, "slurm_error: mem_interleave: job 42 step 0: node 7 is not online"));
	slurm_spank_exit(NULL, 0, NULL);
}

static void test_extern_step_does_nothing(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, "default=weighted" };

	fake.step_id = SLURM_EXTERN_CONT;
	start_step(NULL, 1, argv);
	assert_false(step.active);
	slurm_spank_exit(NULL, 0, NULL);
}

/* sysfs=always: the step writes its plans' weights and restores them at exit. */
static void test_lease_always(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=always" };
	struct mi_step *c = &step;
	char want1[8];

	start_step("weighted", 3, argv);
	assert_true(c->lease_held);
	assert_true(fake.placement.sysfs_written);
	/* Node 1's plan is node 1 alone, so its weight is 1 instead of the fixture's 7. */
	snprintf(want1, sizeof(want1), "%u", c->pl.plans[1].weights[0]);
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node1"), want1);
	assert_string_not_equal(fake_tree_read(fx->statedir, "/weights.journal"), "<missing>");
	slurm_spank_exit(NULL, 0, NULL);
	assert_false(c->lease_held);
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node0"), "7");
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node1"), "7");
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node2"), "2");
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/auto"), "true");
	assert_string_equal(fake_tree_read(fx->statedir, "/weights.journal"), "<missing>");
}

/* One task on a node the job owns, its CPUs on both CPU nodes (the fixture's nodes
 * given this host's CPUs 0 and 1): its plan spans both nodes, the step scales socket 1's
 * lone DRAM to socket 0's 7:2 when it writes the weights (7:9:2), keeps the span for
 * rebalance, and the task says which CPU nodes its plan serves. */
static void test_task_spanning_sockets(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg };
	struct mi_step *c = &step;
	cpu_set_t both;
	const char *err;
	int rc;

	CPU_ZERO(&both);
	CPU_SET(0, &both);
	CPU_SET(1, &both);
	if (sched_setaffinity(0, sizeof(both), &both))
		skip();         /* this host cannot run one task on two CPUs */
	fake_tree_write(fx->root, "/sys/devices/system/node/node0/cpulist", "0\n");
	fake_tree_write(fx->root, "/sys/devices/system/node/node1/cpulist", "1\n");
	fake.cores = "0-1";
	fake.local_tasks = 1;
	/* a step on one of the job's cores: its task's CPUs are not known to span */
	fake.step_cores = "0";
	start_step("verbose,weighted", 2, argv);
	assert_false(c->kept->has_span);
	assert_string_not_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node1"), "9");
	slurm_spank_exit(NULL, 0, NULL);

	setup(state);
	*state = fx;
	fake.cores = fake.step_cores = "0-1";
	fake.local_tasks = 1;
	start_step("verbose,weighted", 2, argv);
	assert_true(c->lease_held);
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node1"), "9");
	assert_true(c->kept->has_span);
	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_CPU_NODES"), "0,1");
	assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_NODES"), "0,1,2");
	if (kernel_takes_weighted()) {
		assert_string_equal(env_of("SLURM_MEM_INTERLEAVE_WEIGHTS"), "7:9:2");
		assert_non_null(strstr(err, "(cpus 0-1, CPU nodes 0,1): weighted interleave nodes 0,1,2 weights 7:9:2"));
	}
	slurm_spank_exit(NULL, 0, NULL);
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node1"), "7");
}

/* sysfs=exclusive: only a job holding every core of the node writes. */
static void test_lease_exclusive(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=exclusive" };
	struct mi_step *c = &step;

	fake.cores = "0-1";           /* 2 of the fixture's 4 CPUs */
	start_step("weighted", 3, argv);
	assert_false(c->lease_held);
	assert_non_null(strstr(c->pl.note, "shares the node"));
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node1"), "7");
	slurm_spank_exit(NULL, 0, NULL);

	setup(state);
	*state = fx;
	fake.cores = "0-3";
	start_step("weighted", 3, argv);
	assert_true(c->lease_held);
	slurm_spank_exit(NULL, 0, NULL);
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node1"), "7");
}

/* Another job's live lease: this step writes nothing and runs on the current weights. */
static void test_lease_busy(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=always" };
	struct smpol_lease_owner other = { .job_id = 7, .uid = 1001, .pid = getppid() };
	struct smpol_wi_table w = { 0 };
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN];
	struct mi_step *c = &step;

	assert_int_equal(smpol_lease_owner_self(&other, err, sizeof(err)), 0);
	smpol_bitmap_clear(&which);
	smpol_bitmap_set(&which, 1);
	w.weight[1] = 5;
	assert_int_equal(smpol_lease_acquire(fake_host(fx->root, fx->statedir), &other, &w, &which, err, sizeof(err)), 0);
	start_step("weighted", 3, argv);
	assert_false(c->lease_held);
	assert_non_null(strstr(c->pl.note, "held by job 7"));
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node1"), "5");
	/* What the step's node-1 tasks get is the table as it is. */
	assert_int_equal(c->pl.plans[1].weights[0], 5);
	slurm_spank_exit(NULL, 0, NULL);
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node1"), "5");
	assert_int_equal(smpol_lease_release(fake_host(fx->root, fx->statedir), &other, NULL, err, sizeof(err)), 0);
}

/* The lease's lock held by someone else: the step waits lock_timeout at most, then
 * runs on the current weights and says why (the alarm fails an unbounded wait). */
static void test_lease_lock_held(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=always", "lock_timeout=0.2" };
	char err[SMPOL_ERRLEN];
	struct mi_step *c = &step;
	int held;

	assert_int_equal(smpol_statedir_lock(fake_host(fx->root, fx->statedir), "lock", true, LOCK_EX, &held,
					     err, sizeof(err)), 0);
	alarm(30);
	start_step("weighted", 4, argv);
	alarm(0);
	assert_true(c->pl.active);
	assert_false(c->lease_held);
	assert_non_null(strstr(c->pl.note, "another process held it for longer than 0.200 s"));
	assert_non_null(strstr(fake.log, "weights not written: cannot lock"));
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node1"), "7");
	slurm_spank_exit(NULL, 0, NULL);
	close(held);
}

/* A step killed while holding the lease: the next step puts the table back first. */
static void test_dead_lease_recovered_by_next_step(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "sysfs=never" };
	pid_t dead = fork();

	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	mkdir(fx->statedir, 0755);
	{
		char journal[256];

		snprintf(journal, sizeof(journal), "slurm-mempolicy lease v1\nowner job=8 step=3 uid=1008 pid=%d "
			 "start=1\nsaved auto=1 0:7 1:7 2:2\n", (int)dead);
		fake_tree_write(fx->statedir, "/weights.journal", journal);
	}
	fake_tree_write(fx->root, FAKE_WI_DIR "/node1", "50");
	fake_tree_write(fx->root, FAKE_WI_DIR "/auto", "false");
	start_step("auto", 3, argv);
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node1"), "7");
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/auto"), "true");
	assert_string_equal(fake_tree_read(fx->statedir, "/weights.journal"), "<missing>");
	assert_non_null(strstr(fake.log, "slurm_info: mem_interleave: job 42 step 0: restored the weights left by job 8 step 3"));
	slurm_spank_exit(NULL, 0, NULL);
}

/* ---- another Slurm release ---------------------------------------------------- */

/* slurm_api_version() of the releases the project is tested on (Slurm's META). */
#define API_22_05 (38L << 16)
#define API_24_11 (42L << 16)
#define API_25_11 (44L << 16)
#define API_26_05 (45L << 16)
#define BUILT_MAJOR SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER)
#define BUILT_MINOR SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER)

/* The other tested release than the one built against, and what it is called. */
static long api_other(const char **name)
{
	bool built_24_11 = BUILT_MAJOR == 24 && BUILT_MINOR == 11;

	*name = built_24_11 ? "22.05" : "24.11";
	return built_24_11 ? API_22_05 : API_24_11;
}

/* The line a job that asked fails with, when this process runs OTHER. */
static const char *expected_line(const char *other)
{
	static char line[256];

	snprintf(line, sizeof(line), "built for Slurm %u.%02u, this node runs Slurm %s: the administrator must "
		 "rebuild the plugin; --mem-interleave is unavailable", BUILT_MAJOR, BUILT_MINOR, other);
	return line;
}

static void test_release_same_or_unknown(void **state)
{
	long unknown[] = { 0, -1, 35L << 16, 46L << 16, 0xffL << 16, 38, 0x7fffffffL };
	long built = BUILT_MAJOR == 22 && BUILT_MINOR == 5 ? API_22_05 :
		     BUILT_MAJOR == 24 && BUILT_MINOR == 11 ? API_24_11 :
		     BUILT_MAJOR == 25 && BUILT_MINOR == 11 ? API_25_11 :
		     BUILT_MAJOR == 26 && BUILT_MINOR == 5 ? API_26_05 : 0;

	(void)state;
	assert_null(release_mismatch());
	/* API versions no known release has leave the loader's check as built. */
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		release_adopt(unknown[i]);
		assert_int_equal(plugin_version, SLURM_VERSION_NUMBER);
		assert_null(release_mismatch());
	}
	if (!built) {
		/* Built against a release this test does not name (cmocka's skip counts as a
		 * failure in automake's TAP driver): the slurm tiers load the real thing. */
		print_message("built against Slurm %u.%02u: only unknown API versions checked\n", BUILT_MAJOR, BUILT_MINOR);
		return;
	}
	release_adopt(built);
	assert_int_equal(plugin_version, SLURM_VERSION_NUMBER);
	assert_null(release_mismatch());
}

static void test_release_other_adopted(void **state)
{
	const char *other;
	long api = api_other(&other);
	char number[16];

	(void)state;
	release_adopt(api);
	snprintf(number, sizeof(number), "%u.%02u", SLURM_VERSION_MAJOR(plugin_version), SLURM_VERSION_MINOR(plugin_version));
	assert_string_equal(number, other);
	assert_string_equal(release_mismatch(), expected_line(other));
	/* The revision and age bytes of the API version do not matter. */
	plugin_version = SLURM_VERSION_NUMBER;
	release_adopt(api | 0x0203);
	assert_string_equal(release_mismatch(), expected_line(other));
}

/* srun/sbatch/salloc: refused with the release line, whatever the value; one line. */
static void test_release_mismatch_local(void **state)
{
	const char *values[] = { "weighted", "bogus", "help", "none" }, *other;
	char want[512];

	(void)state;
	release_adopt(api_other(&other));
	snprintf(want, sizeof(want), "slurm_error: mem_interleave: %s\n", expected_line(other));
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		memset(&fake, 0, sizeof(fake));
		memset(&step, 0, sizeof(step));
		memset(&parsed, 0, sizeof(parsed));
		fake.context = i % 2 ? S_CTX_ALLOCATOR : S_CTX_LOCAL;
		assert_int_equal(give_option(values[i], 0), -1);
		assert_string_equal(fake.log, want);
	}
	/* Without the option nothing is said and nothing fails. */
	memset(&fake, 0, sizeof(fake));
	memset(&step, 0, sizeof(step));
	memset(&parsed, 0, sizeof(parsed));
	fake.context = S_CTX_LOCAL;
	assert_int_equal(slurm_spank_init(NULL, 0, NULL), 0);
	assert_int_equal(slurm_spank_init_post_opt(NULL, 0, NULL), 0);
	assert_string_equal(fake.log, "");
}

/* slurmstepd, a job that asked (its option came from a submit host of the right
 * release): tasks fail with the line, slurmd's log has it, no record is begun. */
static void test_release_mismatch_step_asking(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg };
	const char *err, *other;
	char want[512];
	int rc;

	release_adopt(api_other(&other));
	start_step("weighted", 2, argv);
	assert_false(step.active);
	assert_int_equal(fake.step_begins, 0);
	snprintf(want, sizeof(want), "slurm_error: mem_interleave: job 42 step 0: %s\n", expected_line(other));
	assert_string_equal(fake.log, want);
	assert_int_equal(slurm_spank_task_post_fork(NULL, 0, NULL), 0);
	err = with_stderr(slurm_spank_task_init, &rc);
	assert_int_equal(rc, -1);
	snprintf(want, sizeof(want), "mem_interleave: %s\n", expected_line(other));
	assert_string_equal(err, want);
	assert_int_equal(task_policy(), MPOL_DEFAULT);
	assert_int_equal(slurm_spank_task_exit(NULL, 0, NULL), 0);
	assert_int_equal(slurm_spank_exit(NULL, 0, NULL), 0);
	assert_int_equal(fake.task_begins + fake.task_ends + fake.step_ends, 0);
	/* The lease was never taken: the state directory was not even made. */
	assert_int_equal(access(fx->statedir, F_OK), -1);
}

/* slurmstepd, a job that did not ask: runs as without the plugin, even where the
 * site's default would have placed it. */
static void test_release_mismatch_step_not_asking(void **state)
{
	struct fixture *fx = *state = fixture_new(NEW_KERNEL);
	char *argv[] = { fx->fsroot_arg, fx->statedir_arg, "default=weighted" };
	const char *other;

	release_adopt(api_other(&other));
	start_step(NULL, 3, argv);
	assert_step_untouched();
	assert_string_equal(fake.log, "");
}

/* slurmd at start: says what to rebuild on a mismatch, nothing otherwise. */
static void test_release_slurmd_log(void **state)
{
	const char *other;
	char want[512];

	(void)state;
	fake.context = S_CTX_SLURMD;
	fake.slurm_version = "99.1.2";
	assert_int_equal(slurm_spank_init(NULL, 0, NULL), 0);
	assert_string_equal(fake.log, "");
	assert_int_equal(fake.nregistered, 0);

	release_adopt(api_other(&other));
	assert_int_equal(slurm_spank_init(NULL, 0, NULL), 0);
	snprintf(want, sizeof(want), "slurm_error: mem_interleave: built for Slurm %u.%02u.%u, but this slurmd is "
		 "Slurm 99.1.2: rebuild mem_interleave.so against Slurm %s's headers (libslurm-dev, slurm-smd-dev or "
		 "slurm-devel %s) and install it; until then jobs that ask for --mem-interleave fail and other "
		 "jobs run without it\n",
		 BUILT_MAJOR, BUILT_MINOR, SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER), other, other);
	assert_string_equal(fake.log, want);
	/* Without S_SLURM_VERSION the release the loader accepted is named. */
	memset(fake.log, 0, sizeof(fake.log));
	fake.slurm_version = NULL;
	assert_int_equal(slurm_spank_init(NULL, 0, NULL), 0);
	snprintf(want, sizeof(want), "but this slurmd is Slurm %s: ", other);
	assert_non_null(strstr(fake.log, want));
	/* the plugin acts on its own release only: no courier on a mismatch */
	assert_int_equal(fake.courier_starts, 1);
}

/* slurmd at start: the courier of spooled records starts with the site's arguments,
 * and slurmd's exit stops it. */
static void test_slurmd_courier(void **state)
{
	char *av[] = { "statedir=/var/spool/x", "record=extra" };

	(void)state;
	fake.context = S_CTX_SLURMD;
	assert_int_equal(slurm_spank_init(NULL, 2, av), 0);
	assert_int_equal(fake.courier_starts, 1);
	assert_string_equal(fake.courier_args, "statedir=/var/spool/x record=extra");
	assert_int_equal(slurm_spank_slurmd_exit(NULL, 0, NULL), 0);
	assert_int_equal(fake.courier_stops, 1);
	/* not in slurmstepd */
	fake.context = S_CTX_REMOTE;
	fake.courier_starts = 0;
	slurm_spank_init(NULL, 2, av);
	assert_int_equal(fake.courier_starts, 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_local_accepts_and_rejects),
		T(test_local_same_weights_twice),
		T(test_local_step_overrides_job),
		T(test_local_bad_value),
		T(test_local_long_value_keeps_reason),
		T(test_local_help_exits_zero),
		T(test_step_weighted),
		T(test_step_keeps_little),
		T(test_kept_written_with_its_tasks),
		T(test_step_bandwidth_sources),
		T(test_step_quiet_auto),
		T(test_step_region_aware),
		T(test_step_region_interposer),
		T(test_preload_list),
		T(test_sampler_places_regions),
		T(test_sampler_pmbind_falls_back),
		T(test_old_kernel_ladder),
		T(test_old_kernel_strict),
		T(test_no_option_default_none),
		T(test_site_default_applies),
		T(test_bad_plugstack_spares_other_jobs),
		T(test_bad_plugstack_fails_asking_job),
		T(test_node_not_on_this_machine),
		T(test_extern_step_does_nothing),
		T(test_task_spanning_sockets),
		T(test_lease_always),
		T(test_lease_exclusive),
		T(test_lease_busy),
		T(test_lease_lock_held),
		T(test_dead_lease_recovered_by_next_step),
		T(test_release_same_or_unknown),
		T(test_release_other_adopted),
		T(test_release_mismatch_local),
		T(test_release_mismatch_step_asking),
		T(test_release_mismatch_step_not_asking),
		T(test_release_slurmd_log),
		T(test_slurmd_courier),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
