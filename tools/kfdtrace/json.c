// SPDX-License-Identifier: GPL-2.0
/*
 * A small JSON reader for kfdtrace's own files: objects, arrays, numbers,
 * strings (with the usual escapes), true/false/null. Nested keys are
 * flattened into dotted paths.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

struct parser {
	const char *p;
	char *err;
	size_t errlen;
	struct kt_doc *doc;
};

static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->err && !ps->err[0]) {
		va_start(ap, fmt);
		vsnprintf(ps->err, ps->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void skip_ws(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static int add(struct parser *ps, const char *key, bool is_str, double num,
	       const char *str)
{
	struct kt_doc *d = ps->doc;
	struct kt_field *f;

	if (d->n == d->cap) {
		int cap = d->cap ? 2 * d->cap : 64;
		struct kt_field *nf = realloc(d->fields, cap * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		d->fields = nf;
		d->cap = cap;
	}
	f = &d->fields[d->n];
	f->key = strdup(key);
	f->is_str = is_str;
	f->num = num;
	f->str = str ? strdup(str) : NULL;
	if (!f->key || (str && !f->str))
		return -ENOMEM;
	d->n++;
	return 0;
}

/* a string at ps->p (after the quote); the result is malloc()ed */
static int parse_string(struct parser *ps, char **out)
{
	size_t len = 0, cap = 32;
	char *s = malloc(cap);

	if (!s)
		return -ENOMEM;
	for (;;) {
		char c = *ps->p++;

		if (!c) {
			free(s);
			return fail(ps, "unterminated string");
		}
		if (c == '"')
			break;
		if (c == '\\') {
			c = *ps->p++;
			if (!c) {
				free(s);
				return fail(ps, "unterminated string");
			}
			if (c == 'u' && !strncmp(ps->p, "00", 2) &&
			    isxdigit((unsigned char)ps->p[2]) &&
			    isxdigit((unsigned char)ps->p[3])) {
				/* only what kfdtrace writes: \u00XX */
				c = (char)strtol((char[]){ ps->p[2], ps->p[3], 0 },
						 NULL, 16);
				ps->p += 4;
			} else if (strchr("\"\\/", c)) {
				/* as it is */
			} else if (strchr("ntrbf", c)) {
				c = "\n\t\r\b\f"[strchr("ntrbf", c) - "ntrbf"];
			} else {
				free(s);
				return fail(ps, "bad escape \\%c", c);
			}
		}
		if (len + 2 > cap) {
			char *ns = realloc(s, cap *= 2);

			if (!ns) {
				free(s);
				return -ENOMEM;
			}
			s = ns;
		}
		s[len++] = c;
	}
	s[len] = 0;
	*out = s;
	return 0;
}

static int parse_value(struct parser *ps, const char *path);

static char *join(const char *path, const char *key)
{
	size_t n = strlen(path) + strlen(key) + 2;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s%s", path, *path ? "." : "", key);
	return s;
}

/* the value of member @name of the container at @path */
static int parse_member(struct parser *ps, const char *path, const char *name)
{
	char *sub = join(path, name);
	int ret;

	if (!sub)
		return -ENOMEM;
	ret = parse_value(ps, sub);
	free(sub);
	return ret;
}

/* at the start of a container: true (and past @close) if it is empty */
static bool list_empty(struct parser *ps, char close)
{
	skip_ws(ps);
	if (*ps->p != close)
		return false;
	ps->p++;
	return true;
}

/* after a member: 1 if another follows, 0 past @close, or an error */
static int list_next(struct parser *ps, char close)
{
	skip_ws(ps);
	if (*ps->p == ',' || *ps->p == close)
		return *ps->p++ == ',';
	return fail(ps, "expected ',' or '%c'", close);
}

static int parse_object(struct parser *ps, const char *path)
{
	char *key;
	int ret;

	if (list_empty(ps, '}'))
		return 0;
	do {
		skip_ws(ps);
		if (*ps->p++ != '"')
			return fail(ps, "expected a key");
		ret = parse_string(ps, &key);
		if (ret)
			return ret;
		skip_ws(ps);
		if (*ps->p++ != ':')
			ret = fail(ps, "expected ':' after \"%s\"", key);
		else
			ret = parse_member(ps, path, key);
		free(key);
		if (ret)
			return ret;
		ret = list_next(ps, '}');
	} while (ret > 0);
	return ret;
}

static int parse_array(struct parser *ps, const char *path)
{
	char idx[16];
	int i, ret;

	if (list_empty(ps, ']'))
		return 0;
	i = 0;
	do {
		snprintf(idx, sizeof(idx), "%d", i++);
		ret = parse_member(ps, path, idx);
		if (ret)
			return ret;
		ret = list_next(ps, ']');
	} while (ret > 0);
	return ret;
}

static int parse_value(struct parser *ps, const char *path)
{
	char *end, *s;
	double v;
	int ret;

	skip_ws(ps);
	switch (*ps->p) {
	case '{':
		ps->p++;
		return parse_object(ps, path);
	case '[':
		ps->p++;
		return parse_array(ps, path);
	case '"':
		ps->p++;
		ret = parse_string(ps, &s);
		if (ret)
			return ret;
		ret = add(ps, path, true, 0, s);
		free(s);
		return ret;
	}
	if (!strncmp(ps->p, "true", 4)) {
		ps->p += 4;
		return add(ps, path, false, 1, NULL);
	}
	if (!strncmp(ps->p, "false", 5)) {
		ps->p += 5;
		return add(ps, path, false, 0, NULL);
	}
	if (!strncmp(ps->p, "null", 4)) {
		ps->p += 4;
		return 0;
	}
	errno = 0;
	v = strtod(ps->p, &end);
	if (end == ps->p || errno)
		return fail(ps, "bad value at \"%.20s\"", ps->p);
	ps->p = end;
	return add(ps, path, false, v, NULL);
}

int kt_json_parse(const char *text, struct kt_doc *doc, char *err, size_t errlen)
{
	struct parser ps = { .p = text, .err = err, .errlen = errlen, .doc = doc };
	int ret;

	if (err && errlen)
		err[0] = 0;
	memset(doc, 0, sizeof(*doc));
	ret = parse_value(&ps, "");
	if (!ret) {
		skip_ws(&ps);
		if (*ps.p)
			ret = fail(&ps, "trailing data at \"%.20s\"", ps.p);
	}
	if (ret)
		kt_doc_free(doc);
	return ret;
}

int kt_json_load(const char *path, struct kt_doc *doc, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text;
	long len;
	int ret;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = malloc(len + 1);
	if (!text || fread(text, 1, len, f) != (size_t)len) {
		fclose(f);
		free(text);
		snprintf(err, errlen, "%s: cannot read", path);
		return -EIO;
	}
	fclose(f);
	text[len] = 0;
	ret = kt_json_parse(text, doc, err, errlen);
	free(text);
	return ret;
}

const struct kt_field *kt_doc_get(const struct kt_doc *doc, const char *key)
{
	int i;

	for (i = 0; i < doc->n; i++)
		if (!strcmp(doc->fields[i].key, key))
			return &doc->fields[i];
	return NULL;
}

void kt_doc_free(struct kt_doc *doc)
{
	int i;

	for (i = 0; i < doc->n; i++) {
		free(doc->fields[i].key);
		free(doc->fields[i].str);
	}
	free(doc->fields);
	memset(doc, 0, sizeof(*doc));
}
