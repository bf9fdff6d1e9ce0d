/* check_record.c - mpolctl check: whether the field record= names can keep the record
 * beside the site's other users of it, and who writes it (see checks.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "checks.h"
#include "courier_lock.h"
#include "plugstack.h"

void smpol_check_record_field(const struct smpol_site_config *cfg, const char *slurm_conf, struct smpol_findings *f)
{
	char value[1024];

	switch (cfg->record) {
	case SMPOL_RECORD_EXTRA:
		/* without the flag slurmdbd never stores Extra: the record reaches no one */
		if (smpol_slurm_conf_value(slurm_conf, "AccountingStoreFlags", value, sizeof(value)) < 0 ||
		    !strcasestr(value, "job_extra"))
			smpol_findings_add(f, SMPOL_SEV_WARNING, "record-extra-unstored", -1,
					   "add job_extra to AccountingStoreFlags in slurm.conf, or use record=admincomment",
					   "record=extra, but %s has no AccountingStoreFlags=job_extra: accounting never "
					   "keeps the job's Extra, so no placement record reaches sacct", slurm_conf);
		else
			smpol_findings_add(f, SMPOL_SEV_OK, "record-field", -1, "", "the record goes to the job's "
					   "Extra, which accounting keeps (AccountingStoreFlags=%s)", value);
		break;
	case SMPOL_RECORD_ADMIN_COMMENT:
		/* jobstats sets AdminComment from an EpilogSlurmctld: shared safely, by moving */
		if (smpol_slurm_conf_value(slurm_conf, "EpilogSlurmctld", value, sizeof(value)) == 0 && value[0])
			smpol_findings_add(f, SMPOL_SEV_OK, "record-field", -1, "", "the record goes to the job's "
					   "AdminComment; %s names an EpilogSlurmctld (%s), from which jobstats sets "
					   "AdminComment: a record its summary replaces is moved to SystemComment, which "
					   "dbd_client= writes", slurm_conf, value);
		else
			smpol_findings_add(f, SMPOL_SEV_OK, "record-field", -1, "", "the record goes to the job's "
					   "AdminComment");
		break;
	default:
		smpol_findings_add(f, SMPOL_SEV_OK, "record-field", -1, "", "record=none: no record in accounting");
		break;
	}
}

void smpol_check_courier(const struct smpol_site_config *cfg, struct smpol_findings *f)
{
	char held[4200], want[4200];
	int rc;

	if (cfg->record == SMPOL_RECORD_NONE)
		return;
	rc = smpol_courier_probe(cfg, held, sizeof(held));
	smpol_courier_settings(cfg, want, sizeof(want));
	if (rc == -EACCES || rc == -EPERM)
		smpol_findings_add(f, SMPOL_SEV_SKIPPED, "courier", -1, "run mpolctl check as root to check it",
				   "whether slurmd's courier writes the records: %s/%s cannot be read", cfg->host.statedir,
				   SMPOL_COURIER_LOCK);
	else if (rc == SMPOL_COURIER_LISTENS)
		smpol_findings_add(f, SMPOL_SEV_OK, "courier", -1, "", "slurmd's courier writes the records (%s): "
				   "steps hand theirs over and do not wait for the write", want);
	else if (rc == SMPOL_COURIER_OTHER)
		smpol_findings_add(f, SMPOL_SEV_WARNING, "courier-settings", -1, "restart slurmd, so that its courier "
				   "takes plugstack.conf's settings", "slurmd's courier writes by '%s', plugstack.conf "
				   "says '%s': each step writes its record itself, at its end", held, want);
	else
		smpol_findings_add(f, SMPOL_SEV_INFO, "courier-none", -1, "start slurmd with the plugin in "
				   "plugstack.conf; if it runs, its log says why it has no courier",
				   "no slurmd courier listens in %s: each step writes its record itself, at its end",
				   cfg->host.statedir);
}
