/* cli.h - what every mpolctl verb parses the same way.
 *
 * Use with cli_getopt (getopt_long that refuses an option with a value given twice):
 * put CLI_COMMON_OPTIONS in the verb's option table, start the short-option string
 * with ":" (so a missing value is reported as such), and hand every option the verb
 * does not know itself to cli_common_option:
 *
 *	struct cli_common c;
 *	cli_common_init(&c);
 *	while ((opt = cli_getopt(&c, "show", argc, argv, ":h", options)) != -1) {
 *		switch (opt) {
 *		case 'x': ...; break;
 *		default: cli_common_option(&c, "show", opt, argc, argv, usage);
 *		}
 *	}
 *	cli_no_operands(&c, "show", argc, argv);
 *	... smpol_topology_read(&c.host, ...); if (c.json) ...
 *
 * A verb that uses the state directory also puts CLI_STATEDIR_OPTION in its table; one
 * that acts as the plugin would (plan, show, check, calibrate) puts CLI_SITE_OPTIONS
 * there and reads the site's plugstack line with cli_site_read (site.h).
 */
#ifndef MPOLCTL_CLI_H
#define MPOLCTL_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bandwidth.h"
#include "host.h"

struct json_object;

enum {
	CLI_OPT_FSROOT = 0x100,   /* long-only options: values above any char */
	CLI_OPT_JSON,
	CLI_OPT_STATEDIR,
	CLI_OPT_PLUGSTACK,
	CLI_OPT_BANDWIDTH,
	CLI_OPT_MAX_SOURCE,
};

#define CLI_COMMON_OPTIONS \
	{ "fsroot", required_argument, NULL, CLI_OPT_FSROOT }, \
	{ "json", no_argument, NULL, CLI_OPT_JSON }, \
	{ "help", no_argument, NULL, 'h' }
#define CLI_STATEDIR_OPTION { "statedir", required_argument, NULL, CLI_OPT_STATEDIR }
#define CLI_SITE_OPTIONS \
	{ "plugstack", required_argument, NULL, CLI_OPT_PLUGSTACK }, \
	{ "bandwidth", required_argument, NULL, CLI_OPT_BANDWIDTH }, \
	{ "max-source", required_argument, NULL, CLI_OPT_MAX_SOURCE }

/* Option values above this are not tracked by cli_getopt (none is). */
#define CLI_OPT_LIMIT 0x300

struct cli_common {
	struct smpol_host host;  /* --fsroot, else $MPOL_FSROOT, else /; --statedir, else the default */
	bool fsroot_given;
	bool statedir_given;
	bool json;               /* --json */
	const char *plugstack;   /* --plugstack FILE, NULL = Slurm's */
	const char *bandwidth;   /* --bandwidth FILE|none, NULL = the plugstack line's */
	int max_source;          /* --max-source: the highest-ranked bandwidth source used */
	int repeatable;          /* the one option that may be given more than once (--pid), or 0 */
	bool seen[CLI_OPT_LIMIT];  /* options with a value given so far (cli_getopt) */
};

/* Every verb starts from this. */
void cli_common_init(struct cli_common *c);

/*
 * cli_getopt - getopt_long, and exit 2 when an option that takes a value comes a second
 * time ("--scope given twice: give it once"): taking the last one silently would hide a
 * mistake. c->repeatable names the one option that accumulates (rebalance's --pid).
 */
int cli_getopt(struct cli_common *c, const char *verb, int argc, char **argv, const char *shortopts,
	       const struct option *options);

/*
 * cli_common_option - handle --fsroot, --statedir, --plugstack, --bandwidth,
 * --max-source, --json, --help and getopt's errors
 * for `verb`. --help calls usage(stdout) and exits 0; an unknown option, a missing
 * value, a --fsroot that is not a directory or a relative --statedir exits 2 with a
 * message. A relative --fsroot (or $MPOL_FSROOT) is made absolute from the current
 * directory. Any other opt is a bug in the verb and also exits 2.
 */
void cli_common_option(struct cli_common *c, const char *verb, int opt, int argc, char **argv,
		       void (*usage)(FILE *out));

/* cli_help - usage(stdout) and exit 0; with --json anywhere on the command line, the
 * same text as {"verb": VERB, "usage": "..."} (verb NULL: mpolctl's own help). */
void cli_help(const char *verb, void (*usage)(FILE *out)) __attribute__((noreturn));

/* cli_no_operands - exit 2 when argv has words left after the options; otherwise apply
 * $MPOL_FSROOT when --fsroot was not given (checked like --fsroot). */
void cli_no_operands(struct cli_common *c, const char *verb, int argc, char **argv);

/*
 * Failures and --json: a script that pipes `mpolctl VERB --json` to a JSON parser gets
 * an answer on stdout whatever happens: when the run fails before it printed its
 * object, {"error": "<the first error sentence>"} (the exit status stays 1 or 2).
 * main calls cli_begin with the whole command line (so a usage error before --json
 * is parsed still answers in JSON) and returns cli_finish(status).
 */
void cli_begin(int argc, char **argv);
int cli_finish(int status);

/* cli_error - "mpolctl VERB: MESSAGE" on stderr (verb NULL: "mpolctl: MESSAGE"),
 * remembered for the JSON answer. */
void cli_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cli_log - an action of a verb that runs unattended (rebalance, watch): one line
 * "mpolctl VERB: MESSAGE" on stderr and one "VERB: MESSAGE" in syslog at prio. */
void cli_log(const char *verb, int prio, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* cli_usage_error - cli_error and a pointer to --help on stderr; exits 2. */
void cli_usage_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/*
 * cli_number - the value of option opt as a NUMBER (number.h, mpolctl(8)) with at most
 * `decimals` digits after the point, scaled by 10^decimals, within [min, max]; exits 2
 * naming the option and the range otherwise ("bad --batch '0': give a whole number
 * from 1 to 65536").
 */
uint64_t cli_number(const char *verb, const char *opt, const char *text, unsigned decimals, uint64_t min,
		    uint64_t max);

/* cli_print_json - print obj (pretty, one object) on stdout and drop the reference.
 * Returns 0, or 1 when stdout failed. */
int cli_print_json(struct json_object *obj);

#endif
