/* test_spec.c - the --mem-interleave value: good and bad input, canonical text and
 * round trips. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "spec.h"

static void parse_ok(const char *text, struct smpol_spec *s)
{
	char err[SMPOL_ERRLEN] = "";

	if (smpol_spec_parse(text, s, err, sizeof(err)))
		fail_msg("'%s' was refused: %s", text, err);
}

static void test_modes(void **state)
{
	static const struct { const char *text; enum smpol_mode mode; } cases[] = {
		{ "weighted", SMPOL_MODE_WEIGHTED }, { "auto", SMPOL_MODE_AUTO },
		{ "interleave", SMPOL_MODE_INTERLEAVE }, { "none", SMPOL_MODE_NONE }, { "help", SMPOL_MODE_HELP },
	};
	struct smpol_spec s;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_ok(cases[i].text, &s);
		assert_int_equal(s.mode, cases[i].mode);
		assert_string_equal(smpol_mode_name(s.mode), cases[i].text);
		assert_false(s.verbose || s.strict || s.has_nodes || s.has_weights || s.has_scope || s.has_precision ||
			     s.min_region_kb);
	}
	assert_string_equal(smpol_mode_name(SMPOL_MODE_UNSET), "unset");
}

static void test_options(void **state)
{
	struct smpol_spec s;

	(void)state;
	parse_ok("verbose,weighted,nodes=0,2,scope=all,precision=0.9,strict", &s);
	assert_int_equal(s.mode, SMPOL_MODE_WEIGHTED);
	assert_true(s.verbose && s.strict && s.has_nodes && s.has_scope && s.has_precision);
	assert_int_equal(smpol_bitmap_count(&s.nodes), 2);
	assert_true(smpol_bitmap_test(&s.nodes, 0) && smpol_bitmap_test(&s.nodes, 2));
	assert_int_equal(s.scope, SMPOL_SCOPE_ALL);
	assert_true(s.precision == 0.9);

	/* min_region in KiB, with every mode that interleaves */
	parse_ok("weighted,min_region=64M", &s);
	assert_int_equal(s.min_region_kb, 65536);
	parse_ok("auto,min_region=1G", &s);
	assert_int_equal(s.min_region_kb, 1048576);
	parse_ok("interleave,min_region=4K", &s);
	assert_int_equal(s.min_region_kb, 4);
	parse_ok("weighted,min_region=2", &s);
	assert_int_equal(s.min_region_kb, 2048);

	parse_ok("quiet,weighted,nodes=0-1,3-4", &s);
	assert_false(s.verbose);
	assert_int_equal(smpol_bitmap_count(&s.nodes), 4);

	/* weights imply the nodes, in any order */
	parse_ok("weighted,weights=2:1:0:3", &s);
	assert_true(s.has_weights && s.has_nodes);
	assert_int_equal(s.weights[0], 3);
	assert_int_equal(s.weights[2], 1);
	assert_int_equal(s.weights[1], 0);
	assert_int_equal(s.nweights, 3);   /* sized by the highest node named */
	assert_int_equal(smpol_bitmap_count(&s.nodes), 2);
	smpol_spec_free(&s);
	parse_ok("weighted,nodes=0,2,weights=0:3:2:1", &s);
	smpol_spec_free(&s);
	parse_ok("weighted,weights=0:3:2:1,nodes=2,0", &s);
	smpol_spec_free(&s);
	parse_ok("weighted,weights=1023:255", &s);
	assert_int_equal(s.nweights, 1024);
	assert_int_equal(s.weights[1023], 255);
	smpol_spec_free(&s);

	/* the same key twice with the same value is fine (callbacks run twice) */
	parse_ok("weighted,scope=all,scope=all,precision=1,precision=1.0,verbose,verbose", &s);
	parse_ok("weighted,weighted", &s);
	parse_ok("auto,nodes=1,scope=socket", &s);
	parse_ok("none,verbose", &s);
}

static void test_bad(void **state)
{
	static const struct { const char *text, *says; } cases[] = {
		{ "", "empty" },
		{ "bogus", "unknown word 'bogus' (modes: weighted" },
		{ "weighted,bogus=1", "unknown key 'bogus'" },
		{ "weighted,,strict", "empty part" },
		{ "weighted,", "empty part" },
		{ ",weighted", "empty part" },
		{ "verbose", "no mode given" },
		{ "nodes=1", "no mode given" },
		{ "weighted,auto", "two modes given ('weighted' and 'auto')" },
		{ "quiet,verbose,weighted", "both quiet and verbose" },
		{ "help,verbose", "help takes nothing else" },
		{ "help,nodes=1", "help takes nothing else" },
		{ "none,nodes=0", "none takes no options" },
		{ "weighted,nodes=", "the key 'nodes' has no value" },
		{ "weighted,nodes=abc", "id 'abc': give a whole number from 0 to 1023" },
		{ "weighted,nodes=3-1", "'3-1' goes backwards" },
		{ "weighted,nodes=1024", "id '1024': give a whole number from 0 to 1023" },
		{ "weighted,nodes=0,x", "unknown word 'x'" },
		{ "weighted,nodes=0,nodes=1", "nodes= given twice with different lists" },
		{ "weighted,weights=0:0", "bad weight '0' for node 0: give a whole number from 1 to 255" },
		{ "weighted,weights=0:256", "bad weight '256' for node 0" },
		{ "weighted,weights=0:-1", "bad weight '-1' for node 0" },
		{ "weighted,weights=0", "'0' has no weight" },
		{ "weighted,weights=0:1:2", "'2' has no weight" },
		{ "weighted,weights=0:1:", "ends with ':'" },
		{ "weighted,weights=x:1", "node 'x': give a whole number from 0 to 1023" },
		{ "weighted,weights=1024:1", "node '1024': give a whole number from 0 to 1023" },
		{ "weighted,weights=0: 1", "bad weight ' 1' for node 0" },
		{ "weighted,weights= 0:1", "node ' 0'" },
		{ "weighted,weights=0:+1", "bad weight '+1'" },
		{ "weighted,weights=0:0x1", "bad weight '0x1'" },
		{ "weighted,weights=0:1:0:2", "node 0 is given twice" },
		{ "weighted,weights=", "the key 'weights' has no value" },
		{ "weighted,weights=0:3,weights=0:4", "weights= given twice with different values" },
		{ "weighted,nodes=1,weights=0:3", "names other nodes than nodes=" },
		{ "weighted,weights=0:3,nodes=0-1", "names other nodes than weights=" },
		{ "auto,weights=0:3", "weights= needs mode weighted" },
		{ "weighted,scope=rack", "bad scope 'rack'" },
		{ "weighted,scope=all,scope=socket", "scope= given twice" },
		{ "weighted,precision=1.5", "bad precision '1.5'" },
		{ "weighted,precision=0", "bad precision '0'" },
		{ "weighted,precision=zero", "bad precision 'zero'" },
		{ "weighted,precision=nan", "bad precision 'nan'" },
		{ "weighted,precision=0.9x", "bad precision '0.9x'" },
		/* one decimal grammar (number.h): no exponent, hex, space, sign, or more than 9
		 * digits after the point, judged on the digits written, not on a rounded double */
		{ "weighted,precision=1e-300", "bad precision '1e-300': give a number above 0 and at most 1" },
		{ "weighted,precision=4.9e-324", "bad precision '4.9e-324'" },
		{ "weighted,precision=0x1p-1", "bad precision '0x1p-1'" },
		{ "weighted,precision= 0.5", "bad precision ' 0.5'" },
		{ "weighted,precision=0.5 ", "bad precision '0.5 '" },
		{ "weighted,precision=+0.5", "bad precision '+0.5'" },
		{ "weighted,precision=.5", "bad precision '.5'" },
		{ "weighted,precision=1.", "bad precision '1.'" },
		{ "weighted,precision=1.0000000000000001", "with at most 9 digits after the point" },
		{ "weighted,precision=1.000000001", "bad precision '1.000000001'" },
		{ "weighted,precision=0.0000000001", "bad precision '0.0000000001'" },
		{ "weighted,precision=inf", "bad precision 'inf'" },
		{ "weighted,precision=0.9,precision=0.8", "precision= given twice" },
		{ "weighted,strict=yes", "strict takes no value" },
		{ "weighted,min_region=", "the key 'min_region' has no value" },
		{ "weighted,min_region=0", "min_region='0' is below one page: give at least 4K" },
		{ "weighted,min_region=3K", "min_region='3K' is below one page" },
		{ "weighted,min_region=0K", "is below one page" },
		{ "weighted,min_region=64X", "min_region=: bad size '64X': its suffix is not K, M, G or T" },
		{ "weighted,min_region=64MB", "min_region=: bad size '64MB'" },
		{ "weighted,min_region=1.5G", "min_region=: bad size '1.5G'" },
		{ "weighted,min_region=-1M", "min_region=: bad size '-1M'" },
		{ "weighted,min_region= 64M", "min_region=: bad size ' 64M'" },
		{ "weighted,min_region=0x40M", "min_region=: bad size '0x40M'" },
		{ "weighted,min_region=M", "min_region=: bad size 'M'" },
		{ "weighted,min_region=99999999999999999999", "min_region=: size '99999999999999999999' is too large" },
		{ "weighted,min_region=17179869184T", "is too large" },
		{ "weighted,min_region=64M,min_region=128M", "min_region= given twice with different values" },
		{ "none,min_region=64M", "none takes no options" },
		{ "help,min_region=64M", "help takes nothing else" },
		{ "WEIGHTED", "unknown word 'WEIGHTED'" },
	};
	struct smpol_spec s, before;
	char err[SMPOL_ERRLEN];

	(void)state;
	parse_ok("interleave", &s);
	before = s;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		if (smpol_spec_parse(cases[i].text, &s, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' was accepted", cases[i].text);
		if (!strstr(err, cases[i].says))
			fail_msg("'%s': got '%s', want '%s'", cases[i].text, err, cases[i].says);
		/* a refused value leaves the caller's spec as it was */
		assert_memory_equal(&s, &before, sizeof(s));
	}
	assert_int_equal(smpol_spec_parse(NULL, &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(smpol_spec_parse("bogus", &s, NULL, 0), -EINVAL);
}

static void test_too_long(void **state)
{
	static char text[8192];
	struct smpol_spec s;
	char err[SMPOL_ERRLEN];

	(void)state;
	strcpy(text, "weighted");
	while (strlen(text) < sizeof(text) - 16)
		strcat(text, ",strict");
	assert_int_equal(smpol_spec_parse(text, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "too long"));
}

/* A long bad value is quoted as a bounded, escaped excerpt: the reason always fits. */
static void test_long_value_keeps_reason(void **state)
{
	char text[1200], err[SMPOL_ERRLEN];
	struct smpol_spec s;

	(void)state;
	memset(text, 'a', 800);
	strcpy(text + 800, "\033[2J");
	assert_int_equal(smpol_spec_parse(text, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown word 'aaaa"));
	assert_non_null(strstr(err, "...aaaaaaaaaaaa\\x1b[2J' (804 bytes)"));
	assert_non_null(strstr(err, "(modes: weighted, auto, interleave, none, help;"));
	assert_null(strchr(err, '\033'));
	snprintf(text, sizeof(text), "weighted,precision=0.%0800d", 5);
	assert_int_equal(smpol_spec_parse(text, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "(802 bytes): give a number above 0 and at most 1"));
}

/* The canonical text, and parse(format(parse(x))) == parse(x). */
static void test_format_roundtrip(void **state)
{
	static const struct { const char *in, *canonical; } cases[] = {
		{ "weighted", "weighted" },
		{ "quiet,weighted", "weighted" },
		{ "weighted,verbose", "verbose,weighted" },
		{ "help", "help" },
		{ "none", "none" },
		{ "strict,interleave,nodes=3,1,2", "interleave,nodes=1-3,strict" },
		{ "weighted,weights=2:1:0:3", "weighted,weights=0:3:2:1" },
		{ "weighted,nodes=2,0,weights=0:3:2:1", "weighted,weights=0:3:2:1" },
		{ "weighted,precision=0.90,scope=socket", "weighted,scope=socket,precision=0.9" },
		{ "weighted,precision=1", "weighted,precision=1" },
		{ "weighted,precision=0.123456789", "weighted,precision=0.123456789" },
		{ "weighted,precision=0.000000001", "weighted,precision=0.000000001" },
		{ "weighted,precision=0.980000000", "weighted,precision=0.98" },
		{ "weighted,precision=01", "weighted,precision=1" },
		{ "auto,scope=all,nodes=0-3", "auto,nodes=0-3,scope=all" },
		{ "weighted,min_region=64M", "weighted,min_region=64M" },
		{ "weighted,min_region=64", "weighted,min_region=64M" },
		{ "weighted,min_region=65536k", "weighted,min_region=64M" },
		{ "weighted,min_region=1536M", "weighted,min_region=1536M" },
		{ "weighted,min_region=1g,min_region=1024M", "weighted,min_region=1G" },
		{ "weighted,min_region=4K", "weighted,min_region=4K" },
		{ "weighted,min_region=1025K", "weighted,min_region=1025K" },
		{ "weighted,min_region=2048T", "weighted,min_region=2048T" },
		{ "strict,min_region=8G,interleave", "interleave,min_region=8G,strict" },
		{ "auto,min_region=1T,scope=all", "auto,scope=all,min_region=1T" },
	};
	struct smpol_spec s, back;
	char buf[256], err[SMPOL_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_ok(cases[i].in, &s);
		assert_int_equal(smpol_spec_format(&s, buf, sizeof(buf)), 0);
		assert_string_equal(buf, cases[i].canonical);
		assert_int_equal(smpol_spec_parse(buf, &back, err, sizeof(err)), 0);
		assert_true(smpol_spec_equal(&s, &back));
		smpol_spec_free(&back);
		smpol_spec_free(&s);
	}
	parse_ok("weighted,weights=0:3:2:1", &s);
	assert_int_equal(smpol_spec_format(&s, buf, 10), -ENOSPC);
	assert_string_equal(buf, "");
	smpol_spec_free(&s);
	memset(&s, 0, sizeof(s));
	assert_int_equal(smpol_spec_format(&s, buf, sizeof(buf)), -EINVAL);
}

static void test_usage(void **state)
{
	const char *u = smpol_spec_usage();

	(void)state;
	assert_non_null(strstr(u, "--mem-interleave="));
	for (enum smpol_mode m = SMPOL_MODE_NONE; m <= SMPOL_MODE_HELP; m++)
		assert_non_null(strstr(u, smpol_mode_name(m)));
	assert_non_null(strstr(u, "Examples:"));
	/* every example in the text parses */
	for (const char *p = strstr(u, "--mem-interleave=weighted "); p; p = strstr(p + 1, "srun --mem-interleave=")) {
		char value[128];
		struct smpol_spec s;
		const char *v = strchr(p, '=') + 1;

		snprintf(value, sizeof(value), "%.*s", (int)strcspn(v, " \n"), v);
		parse_ok(value, &s);
		smpol_spec_free(&s);
	}
}

/* Random values built from the grammar's pieces and junk: each is either refused with
 * a sentence, or accepted and then formats to a text that parses back to it. */
static void test_random_values(void **state)
{
	static const char *const words[] = {
		"weighted", "auto", "interleave", "none", "help", "quiet", "verbose", "strict", "nodes=0",
		"nodes=1-3", "nodes=0,2", "2", "weights=0:3", "weights=0:3:2:1", "weights=2:1", "scope=all",
		"scope=socket", "precision=0.9", "precision=1", "", "x", "=", ":", "nodes=", "weights=0",
		"min_region=64M", "min_region=1", "min_region=0", "min_region=4k", "min_region=1.5G",
		"precision=2", "scope=", "strict=1", "1023", "nodes=1024",
	};
	const int nwords = (int)(sizeof(words) / sizeof(words[0]));
	int accepted = 0, refused = 0;

	(void)state;
	srand(4242);
	for (int iter = 0; iter < 20000; iter++) {
		char text[512] = "", err[SMPOL_ERRLEN], buf[512];
		struct smpol_spec s, back;
		int n = 1 + rand() % 5;

		for (int i = 0; i < n; i++) {
			if (i)
				strcat(text, ",");
			strcat(text, words[rand() % nwords]);
		}
		err[0] = '\0';
		if (smpol_spec_parse(text, &s, err, sizeof(err))) {
			assert_true(strlen(err) > 10);
			refused++;
			continue;
		}
		accepted++;
		assert_int_equal(smpol_spec_format(&s, buf, sizeof(buf)), 0);
		if (smpol_spec_parse(buf, &back, err, sizeof(err)))
			fail_msg("'%s' formats to '%s', which is refused: %s", text, buf, err);
		assert_true(smpol_spec_equal(&s, &back));
		smpol_spec_free(&back);
		smpol_spec_free(&s);
	}
	/* both outcomes must be exercised, or the test proves nothing */
	assert_true(accepted > 100 && refused > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_long_value_keeps_reason),
		cmocka_unit_test(test_format_roundtrip),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_random_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
