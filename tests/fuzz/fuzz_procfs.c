/* fuzz_procfs.c - the other texts libsmpol reads from the kernel and from people: a
 * netlink uevent (raw bytes, NULs included), /proc/PID/cgroup, /proc/PID/smaps and a
 * memory size. The first input byte picks the parser, the rest is its input. */
#include <errno.h>

#include "cpuset.h"
#include "error.h"
#include "fuzz.h"
#include "hotplug.h"
#include "pages.h"
#include "units.h"

#define TERMINATED(a) (memchr((a), '\0', sizeof(a)) != NULL)

static void check_uevent(const uint8_t *data, size_t size)
{
	struct smpol_uevent ev;
	int rc = smpol_uevent_parse((const char *)data, size, &ev);

	fuzz_check(rc == 0 || rc == -EINVAL, "uevent rc %d", rc);
	if (!rc) {
		fuzz_check(TERMINATED(ev.action) && TERMINATED(ev.subsystem) && TERMINATED(ev.devpath),
			   "uevent fields unterminated");
		fuzz_check(ev.node >= -1 && ev.node < SMPOL_MAX_NODES, "uevent node %d", ev.node);
		(void)smpol_uevent_is_hotplug(&ev);
	}
}

static void check_cgroup(const char *text)
{
	char dir[4096], root[4096], err[SMPOL_ERRLEN] = "";
	int rc = smpol_cpuset_dir_parse(text, "/nonexistent-fsroot", dir, sizeof(dir), root, sizeof(root),
				       err, sizeof(err));

	fuzz_check(rc <= 0 && (rc == 0 || err[0]), "cgroup rc %d without a sentence", rc);
	if (!rc)
		fuzz_check(!strncmp(dir, root, strlen(root)), "cpuset dir '%s' is not under '%s'", dir, root);
}

static void check_smaps(const char *text)
{
	char err[SMPOL_ERRLEN] = "";
	struct smpol_region *r = NULL;
	int n = -1, rc = smpol_pages_regions_parse(text, &r, &n, err, sizeof(err));

	fuzz_check(rc <= 0 && (rc == 0 || err[0]), "smaps rc %d without a sentence", rc);
	if (!rc)
		for (int i = 0; i < n; i++)
			fuzz_check(r[i].start < r[i].end, "region %d is [%#lx, %#lx)", i,
				   (unsigned long)r[i].start, (unsigned long)r[i].end);
	free(r);
}

static void check_size(const char *text)
{
	char err[SMPOL_ERRLEN] = "";
	uint64_t kib;
	int rc = smpol_parse_size(text, &kib, err, sizeof(err));

	fuzz_check(rc == 0 || ((rc == -EINVAL || rc == -ERANGE) && err[0]), "size rc %d err '%s'", rc, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (!size)
		return 0;
	if (data[0] % 4 == 0) {
		check_uevent(data + 1, size - 1);
		return 0;
	}
	text = fuzz_string(data + 1, size - 1);
	if (data[0] % 4 == 1)
		check_cgroup(text);
	else if (data[0] % 4 == 2)
		check_smaps(text);
	else
		check_size(text);
	free(text);
	return 0;
}
