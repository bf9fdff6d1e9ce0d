/* words.c - split a configuration line into words (see words.h). */
#include <errno.h>
#include <string.h>

#include "words.h"

int smpol_words(char *line, char **words, int max)
{
	char *save = NULL;
	int n = 0;

	for (char *w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return -E2BIG;
		words[n++] = w;
	}
	return n;
}
