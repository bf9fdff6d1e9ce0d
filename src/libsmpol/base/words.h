/* words.h - split a line of a configuration file into words. */
#ifndef SMPOL_WORDS_H
#define SMPOL_WORDS_H

/*
 * smpol_words - split line in place at blanks (space, tab, CR, LF) into at most max
 * words. Returns the count, or -E2BIG when the line has more than max words.
 */
int smpol_words(char *line, char **words, int max);

#endif
