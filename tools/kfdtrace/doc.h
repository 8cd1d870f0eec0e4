/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording's JSON, as kfdtrace writes it and `compare` and `check` read
 * it back (jansson): fields looked up by dotted path, the probe group each
 * field comes from, and the one string fix-up the writer needs.
 */
#ifndef __KFDTRACE_DOC_H
#define __KFDTRACE_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/*
 * Probe groups. Only "ioctl" is required; the others are loaded where their
 * target exists, and the JSON says which went live (probes.GROUP, 0 or 1).
 */
enum kt_group {
	KT_G_IOCTL, KT_G_HMM, KT_G_NOTIFIER, KT_G_HELPER, KT_G_EMU, KT_G_AMDGPU,
	KT_G_NR,
};

extern const char *const kt_group_names[KT_G_NR];

/* a JSON document from a file or a string; NULL and a message in @err on error */
json_t *kt_doc_load(const char *path, char *err, size_t errlen);
json_t *kt_doc_parse(const char *text, char *err, size_t errlen);

/*
 * The value at @path: object members by name, array elements by their
 * index, joined by '.' ("verdict.list.0.rule"); NULL if there is none.
 */
json_t *kt_doc_get(json_t *doc, const char *path);

/* the number at @path (true 1, false 0); NAN when it is not a number */
double kt_doc_num(json_t *doc, const char *path);

/* the probe group that counts the field at @path; -1 for none (always there) */
int kt_field_group(const char *path);

/*
 * Whether the group of the field at @path was live in @doc: false only when
 * the field belongs to a group and the recording says that group was not
 * live (probes.GROUP == 0). Sets *@group to the field's group (-1 if none).
 */
bool kt_field_live(json_t *doc, const char *path, int *group);

/*
 * @s (@len bytes) as valid UTF-8 for a JSON string: each byte that is not
 * part of a well-formed UTF-8 sequence becomes the four characters "\xNN".
 * Returns a malloc()ed string, NULL when out of memory.
 */
char *kt_utf8_escape(const char *s, size_t len);

#endif /* __KFDTRACE_DOC_H */
