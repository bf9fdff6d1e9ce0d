/* step_name.h - a job step as Slurm's commands print it and the record keys it: a
 * number ("0", "17") or, for Slurm's special steps, batch, extern and interactive.
 *
 * One table for the plugin (the record's step key) and mpolctl (job ids it takes,
 * scontrol listpids' STEPID column). The numbers are those slurm.h has had since
 * 20.11 (SLURM_BATCH_SCRIPT, SLURM_EXTERN_CONT, SLURM_INTERACTIVE_STEP); libsmpol
 * includes no Slurm header, so the plugin checks them against slurm.h when it is
 * compiled (record_slurm.c).
 */
#ifndef SMPOL_STEP_NAME_H
#define SMPOL_STEP_NAME_H

#include <stddef.h>
#include <stdint.h>

#define SMPOL_STEP_INTERACTIVE 0xfffffffaU
#define SMPOL_STEP_BATCH 0xfffffffbU
#define SMPOL_STEP_EXTERN 0xfffffffcU
/* The largest ordinary step number; those above are Slurm's special steps. */
#define SMPOL_STEP_MAX 0xffffffefU

/* The step's name: "17", "batch", "extern" or "interactive". */
void smpol_step_name(uint32_t step, char *buf, size_t len);

/* The step's number from its name, as smpol_step_name writes it. -EINVAL with a
 * sentence for anything else (a sign, a number above SMPOL_STEP_MAX, another word). */
int smpol_step_number(const char *name, uint32_t *step, char *err, size_t errlen);

#endif
