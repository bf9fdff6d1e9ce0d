/* commands.h - one function per mpolctl verb; each parses its own arguments.
 * argv[0] is the verb. Return the process exit status: 0 ok, 1 failure,
 * 2 bad arguments. */
#ifndef MPOLCTL_COMMANDS_H
#define MPOLCTL_COMMANDS_H

int cmd_show(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_rebalance(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_check(int argc, char **argv);

#endif
