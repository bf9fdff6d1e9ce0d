/* fs_tree.h - what a program handed a captured sysfs tree would trip on.
 *
 * `mpolctl check` hands --fsroot to hwloc (HWLOC_FSROOT), which opens the files it
 * wants without asking what they are: a FIFO blocks it, a link to a device feeds it
 * forever. The tree is looked over first, without following links into directories.
 */
#ifndef SMPOL_FS_TREE_H
#define SMPOL_FS_TREE_H

#include <stddef.h>

/* The most entries looked at; a captured node has a few thousand. */
#define SMPOL_TREE_MAX_ENTRIES 200000

/*
 * smpol_tree_find_special - the first entry under root that is neither a regular file
 * nor a directory (a FIFO, socket or device), or a link to one, into found (its path
 * and what it is: "DIR/x (a FIFO)"). 1 when there is one, 0 when there is none, -E2BIG
 * ("more than N entries") when the tree is larger than SMPOL_TREE_MAX_ENTRIES or
 * deeper than 64 levels, -errno when root cannot be opened. found says why on errors.
 */
int smpol_tree_find_special(const char *root, char *found, size_t len);

#endif
