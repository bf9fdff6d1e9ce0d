/* cli.c - option handling shared by every mpolctl verb. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "cli.h"
#include "error.h"

void cli_usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mpolctl %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'mpolctl %s --help'.\n", verb);
	exit(2);
}

/* A root that is not a directory would only show up later as "cannot read
 * .../online": say what is wrong while we still know where the value came from. */
static void checked_fsroot(const char *verb, const char *dir, const char *from)
{
	struct stat st;

	if (!*dir)
		cli_usage_error(verb, "%s is empty; give a directory (or leave it out for /)", from);
	if (stat(dir, &st))
		cli_usage_error(verb, "%s '%s': %s", from, dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		cli_usage_error(verb, "%s '%s' is not a directory", from, dir);
}

void cli_common_init(struct cli_common *c)
{
	smpol_host_default(&c->host);
	c->fsroot_given = false;
	c->json = false;
}

static void set_fsroot(struct cli_common *c, const char *verb, const char *dir, const char *from)
{
	char err[SMPOL_ERRLEN];

	checked_fsroot(verb, dir, from);
	if (smpol_host_set_fsroot(&c->host, dir, err, sizeof(err)) < 0)
		cli_usage_error(verb, "%s: %s", from, err);
	c->fsroot_given = true;
}

void cli_common_option(struct cli_common *c, const char *verb, int opt, int argc, char **argv,
		       void (*usage)(FILE *out))
{
	/* getopt leaves optind past the offending word */
	const char *word = optind > 0 && optind - 1 < argc ? argv[optind - 1] : "?";

	switch (opt) {
	case CLI_OPT_FSROOT:
		set_fsroot(c, verb, optarg, "--fsroot");
		return;
	case CLI_OPT_STATEDIR: {
		char err[SMPOL_ERRLEN];

		if (smpol_host_set_statedir(&c->host, optarg, err, sizeof(err)) < 0)
			cli_usage_error(verb, "--statedir: %s", err);
		return;
	}
	case CLI_OPT_JSON:
		c->json = true;
		return;
	case 'h':
		usage(stdout);
		exit(0);
	case ':':
		cli_usage_error(verb, "option '%s' needs a value", word);
	case '?':
		if (optopt && optopt < 0x100)
			cli_usage_error(verb, "unknown option '-%c'", optopt);
		cli_usage_error(verb, "unknown option '%s'", word);
	}
	cli_usage_error(verb, "option '%s' is not handled (a bug in mpolctl)", word);
}

void cli_no_operands(struct cli_common *c, const char *verb, int argc, char **argv)
{
	const char *env;

	if (optind < argc)
		cli_usage_error(verb, "unexpected argument '%s'", argv[optind]);
	if (!c->fsroot_given && (env = getenv("MPOL_FSROOT")))
		set_fsroot(c, verb, env, "MPOL_FSROOT");
}

int cli_print_json(struct json_object *obj)
{
	const char *text;
	int rc = 0;

	/* 0.98, not 0.97999999999999998: ten digits are more than any value here means */
	json_c_set_serialization_double_format("%.10g", JSON_C_OPTION_GLOBAL);
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text || puts(text) == EOF || fflush(stdout))
		rc = 1;
	json_object_put(obj);
	return rc;
}
