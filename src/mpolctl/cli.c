/* cli.c - option handling shared by every mpolctl verb. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <syslog.h>

#include <json-c/json.h>

#include "cli.h"
#include "error.h"
#include "number.h"
#include "text.h"

/* What this run owes a script that asked for --json: one JSON object on stdout. */
static struct {
	bool json;              /* --json is among the words */
	bool printed;           /* an answer went out (cli_print_json) */
	char error[1024];       /* the first error sentence */
} run;

void cli_begin(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		run.json = run.json || !strcmp(argv[i], "--json");
}

/* Say msg on stderr ("mpolctl VERB: msg", or "mpolctl: msg" without a verb) and keep
 * the first one for the JSON answer. */
static void say_error(const char *verb, const char *fmt, va_list ap)
{
	char msg[sizeof(run.error)];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "mpolctl%s%s: %s\n", verb ? " " : "", verb ? verb : "", msg);
	if (!run.error[0])
		snprintf(run.error, sizeof(run.error), "%s", msg);
}

void cli_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_error(verb, fmt, ap);
	va_end(ap);
}

void cli_log(const char *verb, int prio, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mpolctl %s: %s\n", verb, msg);
	syslog(prio, "%s: %s", verb, msg);
}

int cli_finish(int status)
{
	if (run.json && status != 0 && !run.printed) {
		json_object *o = json_object_new_object();

		if (!run.error[0])
			snprintf(run.error, sizeof(run.error), "failed (exit status %d); its standard error says why",
				 status);
		json_object_object_add(o, "error", json_object_new_string(run.error));
		cli_print_json(o);
	}
	return status;
}

void cli_usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_error(verb, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'mpolctl %s --help'.\n", verb);
	exit(cli_finish(2));
}

/* A root that is not a directory would only show up later as "cannot read
 * .../online": say what is wrong while we still know where the value came from. A
 * relative root (tests/fixtures/x, typed in the source tree) is made absolute here,
 * once, so that every reader and child (hwloc) sees the same directory. */
static void checked_fsroot(const char *verb, const char *dir, const char *from, char *abs, size_t len)
{
	char q[SMPOL_QUOTE_LEN], qcwd[SMPOL_QUOTE_LEN], cwd[PATH_MAX];
	struct stat st;

	if (!*dir)
		cli_usage_error(verb, "%s is empty; give a directory (or leave it out for /)", from);
	smpol_quote(dir, q, sizeof(q));
	if (stat(dir, &st)) {
		int e = errno;

		if (dir[0] != '/' && getcwd(cwd, sizeof(cwd)))
			cli_usage_error(verb, "%s %s: %s (a relative path is read from the current directory, %s)",
					from, q, e == ENOENT ? "no such directory" : strerror(e),
					smpol_quote(cwd, qcwd, sizeof(qcwd)));
		cli_usage_error(verb, "%s %s: %s", from, q, e == ENOENT ? "no such directory" : strerror(e));
	}
	if (!S_ISDIR(st.st_mode))
		cli_usage_error(verb, "%s %s is not a directory", from, q);
	if (dir[0] == '/') {
		snprintf(abs, len, "%s", dir);
		return;
	}
	errno = 0;
	if (!realpath(dir, cwd) || snprintf(abs, len, "%s", cwd) >= (int)len)
		cli_usage_error(verb, "%s %s: cannot make it an absolute path: %s", from, q,
				errno ? strerror(errno) : "it is too long");
}

void cli_common_init(struct cli_common *c)
{
	if (smpol_host_default(&c->host) < 0) {
		cli_error(NULL, "out of memory");
		exit(cli_finish(1));
	}
	c->fsroot_given = false;
	c->statedir_given = false;
	c->json = false;
	c->plugstack = NULL;
	c->bandwidth = NULL;
	c->max_source = SMPOL_BW_OVERRIDE;
	c->repeatable = 0;
	memset(c->seen, 0, sizeof(c->seen));
}

int cli_getopt(struct cli_common *c, const char *verb, int argc, char **argv, const char *shortopts,
	       const struct option *options)
{
	int opt = getopt_long(argc, argv, shortopts, options, NULL);

	if (opt < 0 || opt >= CLI_OPT_LIMIT || opt == c->repeatable)
		return opt;
	for (const struct option *o = options; o->name; o++) {
		if (o->val != opt || o->has_arg != required_argument)
			continue;
		if (c->seen[opt] && opt < 0x100)
			cli_usage_error(verb, "-%c/--%s given twice: give it once", opt, o->name);
		if (c->seen[opt])
			cli_usage_error(verb, "--%s given twice: give it once", o->name);
		c->seen[opt] = true;
		break;
	}
	return opt;
}

static void set_fsroot(struct cli_common *c, const char *verb, const char *dir, const char *from)
{
	char err[SMPOL_ERRLEN], abs[PATH_MAX];

	checked_fsroot(verb, dir, from, abs, sizeof(abs));
	if (smpol_host_set_fsroot(&c->host, abs, err, sizeof(err)) < 0)
		cli_usage_error(verb, "%s: %s", from, err);
	c->fsroot_given = true;
}

void cli_help(const char *verb, void (*usage)(FILE *out))
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	json_object *o;

	if (!run.json) {
		usage(stdout);
		exit(fflush(stdout) ? 1 : 0);
	}
	mem = open_memstream(&text, &len);
	if (!mem) {
		cli_error(verb, "out of memory");
		exit(cli_finish(1));
	}
	usage(mem);
	fclose(mem);
	o = json_object_new_object();
	json_object_object_add(o, "verb", verb ? json_object_new_string(verb) : NULL);
	json_object_object_add(o, "usage", json_object_new_string(text ? text : ""));
	free(text);
	exit(cli_print_json(o));
}

void cli_common_option(struct cli_common *c, const char *verb, int opt, int argc, char **argv,
		       void (*usage)(FILE *out))
{
	/* getopt leaves optind past the offending word */
	char word[SMPOL_QUOTE_LEN];

	smpol_quote(optind > 0 && optind - 1 < argc ? argv[optind - 1] : "?", word, sizeof(word));

	switch (opt) {
	case CLI_OPT_FSROOT:
		set_fsroot(c, verb, optarg, "--fsroot");
		return;
	case CLI_OPT_STATEDIR: {
		char err[SMPOL_ERRLEN];

		if (smpol_host_set_statedir(&c->host, optarg, err, sizeof(err)) < 0)
			cli_usage_error(verb, "--statedir: %s", err);
		c->statedir_given = true;
		return;
	}
	case CLI_OPT_PLUGSTACK:
		c->plugstack = optarg;
		return;
	case CLI_OPT_BANDWIDTH:
		if (strcmp(optarg, "none") && optarg[0] != '/')
			cli_usage_error(verb, "--bandwidth '%s': give the absolute path of a bandwidth table, or none",
					optarg);
		c->bandwidth = optarg;
		return;
	case CLI_OPT_MAX_SOURCE: {
		enum smpol_bw_source src;

		if (smpol_bw_source_parse(optarg, &src) || src == SMPOL_BW_NONE)
			cli_usage_error(verb, "--max-source '%s': give sysfs-hmat, acpi-hmat, measured or override", optarg);
		c->max_source = (int)src;
		return;
	}
	case CLI_OPT_JSON:
		c->json = true;
		return;
	case 'h':
		cli_help(verb, usage);
	case ':':
		cli_usage_error(verb, "option %s needs a value", word);
	case '?':
		if (optopt && optopt < 0x100) {
			char letter = (char)optopt;

			cli_usage_error(verb, "unknown option -%s", smpol_quote_n(&letter, 1, word, sizeof(word)));
		}
		cli_usage_error(verb, "unknown option %s", word);
	}
	cli_usage_error(verb, "option %s is not handled (a bug in mpolctl)", word);
}

void cli_no_operands(struct cli_common *c, const char *verb, int argc, char **argv)
{
	const char *env;

	char q[SMPOL_QUOTE_LEN];

	if (optind < argc)
		cli_usage_error(verb, "unexpected argument %s", smpol_quote(argv[optind], q, sizeof(q)));
	if (!c->fsroot_given && (env = getenv("MPOL_FSROOT")))
		set_fsroot(c, verb, env, "MPOL_FSROOT");
}

uint64_t cli_number(const char *verb, const char *opt, const char *text, unsigned decimals, uint64_t min,
		    uint64_t max)
{
	char q[SMPOL_QUOTE_LEN], why[SMPOL_ERRLEN];
	uint64_t v;

	if (smpol_number_parse(text, decimals, min, max, &v, why, sizeof(why)))
		cli_usage_error(verb, "bad %s %s: %s", opt, smpol_quote(text, q, sizeof(q)), why);
	return v;
}

/* Whether the character of len bytes at p is DEL or a C1 control (U+0080-U+009F),
 * which json-c copies as they are. */
static bool json_needs_escape(const unsigned char *p, size_t len)
{
	return (len == 1 && p[0] == 0x7f) || (len == 2 && p[0] == 0xc2 && p[1] <= 0x9f);
}

/* json-c copies a string's bytes as they are: one that is not UTF-8 (a path under
 * --fsroot, a line of a malformed table) would make the whole answer invalid JSON. Such
 * a byte can only be inside a string; it goes out as the text \xNN (JSON "\\xNN"), as
 * the text output writes it. DEL and C1 controls are valid JSON, but not on a terminal
 * (terminal.h): they go out as \u00NN. */
static int put_json_text(const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t left = strlen(text);

	while (left) {
		size_t good = 0, len = 0;

		while (good < left && (len = smpol_utf8_len(p + good, left - good)) && !json_needs_escape(p + good, len))
			good += len;
		if (fwrite(p, 1, good, stdout) != good)
			return EOF;
		if (good == left)
			break;
		if (!len ? printf("\\\\x%02x", p[good]) < 0 : printf("\\u%04x", p[good + len - 1]) < 0)
			return EOF;
		good += len ? len : 1;
		p += good;
		left -= good;
	}
	return putchar('\n');
}

int cli_print_json(struct json_object *obj)
{
	const char *text;
	int rc = 0;

	/* 0.98, not 0.97999999999999998: ten digits are more than any value here means */
	json_c_set_serialization_double_format("%.10g", JSON_C_OPTION_GLOBAL);
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text || put_json_text(text) == EOF || fflush(stdout))
		rc = 1;
	run.printed = true;
	json_object_put(obj);
	return rc;
}
