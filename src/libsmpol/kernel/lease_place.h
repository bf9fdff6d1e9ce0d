/* lease_place.h - the one decision with the weights lease, as a step takes it.
 *
 * smpol_place decides from the table as read; where the step may write weights the
 * table lacks, it asks for the lease (lease_wanted). Taking it and deciding again is
 * one sequence, called by slurmstepd (the plugin's step.c) and by the VM tier's
 * launcher, so both run the same steps in the same order:
 *   decide -> take the lease -> (refused: read the table again) -> decide again.
 * A refused lease means another step holds the table and may have written it after it
 * was read: reading it again makes the plans, the tasks' environment and the record
 * name the weights the tasks really run on.
 */
#ifndef SMPOL_LEASE_PLACE_H
#define SMPOL_LEASE_PLACE_H

#include <stdbool.h>

#include "error.h"
#include "lease.h"
#include "placement.h"
#include "wi.h"

/* How the lease went; in->lease_note and in->table_error point into it afterwards,
 * so it lives as long as the smpol_place_in does. */
struct smpol_lease_try {
	bool held;                       /* the caller holds the lease: smpol_lease_release at the end */
	char refused[SMPOL_ERRLEN];      /* why it was not taken ("" when taken or not wanted) */
	char table_error[SMPOL_ERRLEN];  /* the table read again could not be read: why */
};

/*
 * smpol_place_with_lease - decide (in->lease must be UNTRIED); where the decision wants
 * the lease, take it in in->topo->host for owner (whose pid and start time are filled
 * here from the calling process) and decide again, HELD or NOT_HELD. in->table is set
 * to table, the kernel's table as the caller read it; when refused, it is read again. The
 * decision is in *pl (the caller frees it, smpol_placement_free, also on failure).
 * 0 (a failure the tasks report is in pl->failure), or -ENOMEM from smpol_place.
 */
int smpol_place_with_lease(struct smpol_place_in *in, struct smpol_wi_table *table,
			   struct smpol_lease_owner *owner, struct smpol_placement *pl,
			   struct smpol_lease_try *lt);

#endif
