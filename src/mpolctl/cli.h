/* cli.h - what every mpolctl verb parses the same way.
 *
 * Use with getopt_long: put CLI_COMMON_OPTIONS in the verb's option table, start the
 * short-option string with ":" (so a missing value is reported as such), and hand
 * every option the verb does not know itself to cli_common_option:
 *
 *	struct cli_common c = CLI_COMMON_INIT;
 *	while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
 *		switch (opt) {
 *		case 'x': ...; break;
 *		default: cli_common_option(&c, "show", opt, argc, argv, usage);
 *		}
 *	}
 *	cli_no_operands(&c, "show", argc, argv);
 *	... smpol_topology_read(&c.host, ...); if (c.json) ...
 *
 * A verb that uses the state directory also puts CLI_STATEDIR_OPTION in its table.
 */
#ifndef MPOLCTL_CLI_H
#define MPOLCTL_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "host.h"

struct json_object;

enum {
	CLI_OPT_FSROOT = 0x100,   /* long-only options: values above any char */
	CLI_OPT_JSON,
	CLI_OPT_STATEDIR,
};

#define CLI_COMMON_OPTIONS \
	{ "fsroot", required_argument, NULL, CLI_OPT_FSROOT }, \
	{ "json", no_argument, NULL, CLI_OPT_JSON }, \
	{ "help", no_argument, NULL, 'h' }
#define CLI_STATEDIR_OPTION { "statedir", required_argument, NULL, CLI_OPT_STATEDIR }

struct cli_common {
	struct smpol_host host;  /* --fsroot, else $MPOL_FSROOT, else /; --statedir, else the default */
	bool fsroot_given;
	bool json;               /* --json */
};

/* Every verb starts from this. */
void cli_common_init(struct cli_common *c);

/*
 * cli_common_option - handle --fsroot, --statedir, --json, --help and getopt's errors
 * for `verb`. --help calls usage(stdout) and exits 0; an unknown option, a missing
 * value, a --fsroot that is not a directory or a relative --statedir exits 2 with a
 * message. Any other opt is a bug in
 * the verb and also exits 2.
 */
void cli_common_option(struct cli_common *c, const char *verb, int opt, int argc, char **argv,
		       void (*usage)(FILE *out));

/* cli_no_operands - exit 2 when argv has words left after the options; otherwise apply
 * $MPOL_FSROOT when --fsroot was not given (checked like --fsroot). */
void cli_no_operands(struct cli_common *c, const char *verb, int argc, char **argv);

/* cli_usage_error - "mpolctl VERB: MESSAGE" and a pointer to --help on stderr; exits 2. */
void cli_usage_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* cli_print_json - print obj (pretty, one object) on stdout and drop the reference.
 * Returns 0, or 1 when stdout failed. */
int cli_print_json(struct json_object *obj);

#endif
