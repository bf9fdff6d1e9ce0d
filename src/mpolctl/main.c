/* mpolctl - show and manage bandwidth-aware memory placement on this node. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "error.h"
#include "terminal.h"

struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct verb verbs[] = {
	{ "show", cmd_show, "show the node's memory topology and the kernel's interleave state" },
	{ "plan", cmd_plan, "show the weights a task on given CPUs would get" },
	{ "apply", cmd_apply, "write the system weights (--system) or hand them back to the kernel (--auto)" },
	{ "recover", cmd_recover, "restore sysfs weights left behind by a crashed job step" },
	{ "report", cmd_report, "show how a job's memory was placed (from accounting)" },
	{ "rebalance", cmd_rebalance, "move running tasks' pages to their current plan" },
	{ "watch", cmd_watch, "rebalance after memory hotplug (runs as a service)" },
	{ "check", cmd_check, "check the node's HMAT, weights table and the plugin's configuration" },
	{ "calibrate", cmd_calibrate, "measure every CPU node's bandwidth to every memory node into the table" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: mpolctl [--version] [--help] [--json] VERB [ARGS]\n\nverbs:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(out, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(out, "\n--json before the verb counts as after it (mpolctl --json show).\n"
		"'mpolctl VERB --help' describes a verb; man mpolctl(8) has the details.\n");
}

/* `mpolctl --json show` as scontrol takes it: --json before the verb moves after it. */
static void verb_first(int argc, char **argv)
{
	int moved = 0;

	while (1 + moved < argc && !strcmp(argv[1 + moved], "--json"))
		moved++;
	if (!moved || 1 + moved == argc)
		return;
	argv[1] = argv[1 + moved];
	for (int i = 2; i < 2 + moved; i++)
		argv[i] = "--json";
}

int main(int argc, char **argv)
{
	char q[SMPOL_QUOTE_LEN];

	terminal_filter_install();
	verb_first(argc, argv);
	cli_begin(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return cli_finish(2);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
		cli_help(NULL, usage);
	if (!strcmp(argv[1], "--version")) {
		printf("mpolctl %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name))
			return cli_finish(verbs[i].run(argc - 1, argv + 1));
	cli_error(NULL, "unknown verb %s; try 'mpolctl --help'", smpol_quote(argv[1], q, sizeof(q)));
	return cli_finish(2);
}
