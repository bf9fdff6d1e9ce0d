/* fuzz_job_pids.c - job_pids_parse on any `scontrol listpids` output, and job_id_parse
 * on any job argument. Every row kept names a real pid and job. */
#include <errno.h>

#include "error.h"
#include "fuzz.h"
#include "job_pids.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	char err[SMPOL_ERRLEN] = "", step[24];
	struct job_pid *pids = NULL;
	uint32_t job;
	int n = -1, rc;

	rc = job_pids_parse(text, &pids, &n, err, sizeof(err));
	if (rc) {
		fuzz_check(rc == -EBADMSG && err[0], "rc %d err '%s'", rc, err);
		fuzz_check(!pids && n == 0, "a refused text left %d pids", n);
	} else {
		fuzz_check(n >= 0 && (n == 0 || pids), "%d pids at %p", n, (void *)pids);
		for (int i = 0; i < n; i++) {
			fuzz_check(pids[i].pid > 0, "row %d has pid %d", i, (int)pids[i].pid);
			fuzz_check(pids[i].job > 0, "row %d has job 0", i);
			fuzz_check(memchr(pids[i].step, '\0', sizeof(pids[i].step)), "row %d step unterminated", i);
		}
	}
	free(pids);
	rc = job_id_parse(text, &job, step, sizeof(step), err, sizeof(err));
	fuzz_check(rc == 0 || (rc == -EINVAL && err[0]), "job id rc %d err '%s'", rc, err);
	if (!rc)
		fuzz_check(job > 0 && memchr(step, '\0', sizeof(step)), "job %u", job);
	free(text);
	return 0;
}
