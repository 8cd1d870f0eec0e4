/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON kfdtrace writes, read back as a flat list of "a.b.c" = value
 * pairs: all that `compare` and `check` need.
 */
#ifndef __KFDTRACE_JSON_H
#define __KFDTRACE_JSON_H

#include <stdbool.h>
#include <stdio.h>

struct kt_field {
	char *key;		/* dotted path; array elements use their index */
	bool is_str;
	double num;
	char *str;
};

struct kt_doc {
	struct kt_field *fields;
	int n, cap;
};

int kt_json_parse(const char *text, struct kt_doc *doc, char *err, size_t errlen);
int kt_json_load(const char *path, struct kt_doc *doc, char *err, size_t errlen);
const struct kt_field *kt_doc_get(const struct kt_doc *doc, const char *key);
void kt_doc_free(struct kt_doc *doc);

#endif /* __KFDTRACE_JSON_H */
