/* SPDX-License-Identifier: GPL-2.0 */
/* The batch userptr helper's module parameters, as the selftests read them */
#ifndef __BATCH_PARAM_H
#define __BATCH_PARAM_H

#include <stdio.h>

/* drm_userptr_batch.NAME (for example max_ranges), 0 when unreadable */
static inline unsigned long batch_param(const char *name)
{
	unsigned long v = 0;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/drm_userptr_batch/parameters/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

#endif /* __BATCH_PARAM_H */
