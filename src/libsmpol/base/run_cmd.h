/* run_cmd.h - run a program without a shell and capture what it prints.
 *
 * mpolctl asks Slurm through its own commands (sacct, scontrol) rather than linking
 * libslurm, so one mpolctl binary works across Slurm releases; slurmstepd hands a
 * finished job's record to mem_interleave_dbd (record_ended.h).
 */
#ifndef SMPOL_RUN_CMD_H
#define SMPOL_RUN_CMD_H

#include <stddef.h>

/*
 * smpol_run_capture - fork/exec argv[0] (PATH search), collect up to max bytes of its
 * standard output into *out (malloc'ed, NUL-terminated; free it), its standard error
 * into the error sentence when it fails. Its standard input is input_fd (read from
 * where it stands; the caller keeps it open), or /dev/null when input_fd < 0. Returns 0
 * when it exited 0; -ECHILD with "sacct failed (exit 1): <its stderr>" when it exited
 * non-zero; -ENOENT when the program is missing; -EFBIG when the output exceeded max;
 * -ETIMEDOUT when it ran longer than timeout_s seconds. The child runs in its own
 * process group, which is killed (SIGKILL) on a timeout or an error, and it is
 * killed when the caller dies: nothing it started is left behind, blocked.
 */
int smpol_run_capture(char *const argv[], int input_fd, size_t max, unsigned timeout_s, char **out,
		      char *err, size_t errlen);

#endif
