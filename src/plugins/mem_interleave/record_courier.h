/* record_courier.h - slurmd (root): the node's placement records delivered from its
 * spool, so that no step waits for its record's write.
 *
 * The courier is a thread in slurmd, started when slurmd loads the plugin. It watches
 * STATEDIR/spool and holds STATEDIR/courier.lock shared while it does, with its
 * settings in it (courier_lock.h): a step that finds it listening with its own
 * settings puts its record into the spool at its end and ends at once
 * (record_write_to_courier); the courier, woken by the file's arrival, writes it as the
 * steps would (record_write.h: under the node's record lock, each write read back).
 * Records an outage left there wait as well: every COURIER_IDLE_S it looks at the
 * spool, and while records wait and slurmctld or slurmdbd does not answer it tries
 * again after 5, 10, 20, then every 30 s, so a record arrives within about 30 s of
 * their return, with no job on the node. slurmd's shutdown stops it. slurmd 22.05
 * loads its plugins before it daemonizes (by forking): the courier follows slurmd's
 * forks and delivers only in the process that goes on once the forking one has exited.
 */
#ifndef MEM_INTERLEAVE_RECORD_COURIER_H
#define MEM_INTERLEAVE_RECORD_COURIER_H

/* Start the courier for the site's plugstack arguments (record=none starts none).
 * Logs why it cannot; slurmd starts either way. */
void record_courier_start(int ac, char **av);

/* Stop it and wait for its round in progress to end. */
void record_courier_stop(void);

#endif
