/* lease_place.c - decide, take the weights lease, decide again (lease_place.h). */
#include <string.h>

#include "lease_place.h"

int smpol_place_with_lease(struct smpol_place_in *in, struct smpol_wi_table *table,
			   struct smpol_lease_owner *owner, struct smpol_placement *pl,
			   struct smpol_lease_try *lt)
{
	const struct smpol_host *h = in->topo->host;
	int rc;

	memset(lt, 0, sizeof(*lt));
	in->table = table;
	rc = smpol_place(in, pl);
	if (rc < 0 || !pl->lease_wanted)
		return rc;
	in->lease = SMPOL_LEASE_HELD;
	if (smpol_lease_owner_self(owner, lt->refused, sizeof(lt->refused)) < 0 ||
	    smpol_lease_acquire(h, owner, &pl->want->table, &pl->want->nodes, lt->refused, sizeof(lt->refused)) < 0) {
		in->lease = SMPOL_LEASE_NOT_HELD;
		in->lease_note = lt->refused;
		smpol_wi_read(h, table, lt->table_error, sizeof(lt->table_error));
		in->table_error = lt->table_error[0] ? lt->table_error : NULL;
	}
	lt->held = in->lease == SMPOL_LEASE_HELD;
	smpol_placement_free(pl);
	return smpol_place(in, pl);
}
