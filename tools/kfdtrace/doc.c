// SPDX-License-Identifier: GPL-2.0
/*
 * A recording's JSON read back with jansson (nested objects and arrays,
 * looked up by dotted path), the probe group of each field, and the UTF-8
 * fix-up of the names the writer takes from the kernel.
 *
 * jansson bounds the nesting it parses (JSON_PARSER_MAX_DEPTH, 2048), so a
 * deeply nested file is an error, not a stack overflow.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"

const char *const kt_group_names[KT_G_NR] = {
	[KT_G_IOCTL] = "ioctl",
	[KT_G_HMM] = "hmm",
	[KT_G_NOTIFIER] = "notifier",
	[KT_G_HELPER] = "helper",
	[KT_G_EMU] = "emu",
	[KT_G_AMDGPU] = "amdgpu",
};

static void set_err(char *err, size_t errlen, const char *what, const json_error_t *je)
{
	if (!err || !errlen)
		return;
	if (je->line > 0)
		snprintf(err, errlen, "%s:%d:%d: %s", what, je->line, je->column, je->text);
	else
		snprintf(err, errlen, "%s: %s", what, je->text);
}

json_t *kt_doc_load(const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);

	if (!doc) {
		/* jansson's text names the file when it cannot open it */
		if (je.line <= 0 && err && errlen)
			snprintf(err, errlen, "%s", je.text);
		else
			set_err(err, errlen, path, &je);
	}
	return doc;
}

json_t *kt_doc_parse(const char *text, char *err, size_t errlen)
{
	json_error_t je;
	json_t *doc = json_loads(text, 0, &je);

	if (!doc)
		set_err(err, errlen, "<string>", &je);
	return doc;
}

json_t *kt_doc_get(json_t *doc, const char *path)
{
	char part[256], *end;
	json_t *v = doc;
	size_t len;

	if (!path || !*path)
		return NULL;
	for (;;) {
		len = strcspn(path, ".");
		if (!len || len >= sizeof(part))
			return NULL;
		memcpy(part, path, len);
		part[len] = 0;
		if (json_is_object(v)) {
			v = json_object_get(v, part);
		} else if (json_is_array(v)) {
			unsigned long i;

			if (part[0] < '0' || part[0] > '9')
				return NULL;
			errno = 0;
			i = strtoul(part, &end, 10);
			if (errno || *end)
				return NULL;
			v = json_array_get(v, i);
		} else {
			return NULL;
		}
		if (!v)
			return NULL;
		if (!path[len])
			return v;
		path += len + 1;
	}
}

double kt_doc_num(json_t *doc, const char *path)
{
	json_t *v = kt_doc_get(doc, path);

	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_boolean(v))
		return json_is_true(v);
	return NAN;
}

/*
 * Which probes count each field: the first entry whose prefix @path starts
 * with (a prefix that does not end in '.' or '_' is a whole component).
 * verdict.* has no group: the verdict says "n/a" itself when it saw nothing.
 */
static const struct {
	const char *prefix;
	enum kt_group group;
} field_groups[] = {
	{ "ioctl.", KT_G_IOCTL },
	{ "ranges.", KT_G_IOCTL },
	{ "processes.", KT_G_IOCTL },
	{ "hmm.", KT_G_HMM },
	{ "notifier.", KT_G_NOTIFIER },
	{ "batch.", KT_G_HELPER },
	{ "refault.", KT_G_HELPER },
	{ "invalidate.", KT_G_HELPER },
	{ "evict.ranges", KT_G_HELPER },
	{ "evict.emu", KT_G_EMU },
	{ "evict.amdgpu", KT_G_AMDGPU },
	{ "restore.emu", KT_G_EMU },
	{ "restore.amdgpu_", KT_G_AMDGPU },
	{ "restore.", KT_G_HELPER },
	{ "emu.", KT_G_EMU },
};

int kt_field_group(const char *path)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(field_groups); i++) {
		const char *p = field_groups[i].prefix;
		size_t len = strlen(p);

		if (strncmp(path, p, len))
			continue;
		if (p[len - 1] == '.' || p[len - 1] == '_' || !path[len] || path[len] == '.')
			return field_groups[i].group;
	}
	return -1;
}

bool kt_field_live(json_t *doc, const char *path, int *group)
{
	char probe[48];
	json_t *v;
	int g = kt_field_group(path);

	if (group)
		*group = g;
	if (g < 0)
		return true;
	snprintf(probe, sizeof(probe), "probes.%s", kt_group_names[g]);
	v = kt_doc_get(doc, probe);
	/* a recording that does not say (none does without probes.*) is live */
	return !json_is_number(v) || json_number_value(v) != 0;
}

/* the length of the well-formed UTF-8 sequence at @p (RFC 3629), 0 if none */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* no overlong forms, no surrogates, nothing above U+10FFFF */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

char *kt_utf8_escape(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(4 * len + 1), *o = out;
	size_t i = 0, n;

	if (!out)
		return NULL;
	while (i < len) {
		n = utf8_len(p + i, len - i);
		if (n) {
			memcpy(o, p + i, n);
			o += n;
			i += n;
		} else {
			o += sprintf(o, "\\x%02x", p[i]);
			i++;
		}
	}
	*o = 0;
	return out;
}
