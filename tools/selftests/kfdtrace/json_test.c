// SPDX-License-Identifier: GPL-2.0
/* kfdtrace's JSON reader: flattened keys, values, and each kind of error */
#include <string.h>

#include "../../kfdtrace/json.h"
#include "kselftest_harness.h"

static struct kt_doc doc;
static char err[256];

static const struct kt_field *get(const char *key)
{
	return kt_doc_get(&doc, key);
}

TEST(flattens_objects_and_arrays)
{
	static const char text[] =
		"{\"a\": {\"b\": 1.5, \"c\": [10, {\"d\": \"x\\\"y\"}]}, \"e\": {}, \"f\": [], \"t\": true, \"n\": null}";

	ASSERT_EQ(0, kt_json_parse(text, &doc, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(4, doc.n);	/* null adds nothing, nor do empty containers */
	EXPECT_EQ(1.5, get("a.b")->num);
	EXPECT_EQ(10, get("a.c.0")->num);
	ASSERT_NE(NULL, get("a.c.1.d"));
	EXPECT_TRUE(get("a.c.1.d")->is_str);
	EXPECT_STREQ("x\"y", get("a.c.1.d")->str);
	EXPECT_EQ(1, get("t")->num);
	EXPECT_EQ(NULL, get("n"));
	EXPECT_EQ(NULL, get("e"));
	kt_doc_free(&doc);
}

TEST(escapes)
{
	ASSERT_EQ(0, kt_json_parse("{\"s\": \"a\\nb\\u0041\\\\\"}", &doc, err, sizeof(err)));
	EXPECT_STREQ("a\nbA\\", get("s")->str);
	kt_doc_free(&doc);
}

TEST(errors)
{
	static const char *const bad[] = {
		"{", "{\"a\" 1}", "{\"a\": 1,}", "[1 2]", "{\"a\": \"x}", "{\"a\": \"\\q\"}",
		"{\"a\": nope}", "{} x", "{\"a\": 1]", "[1, ",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = 0;
		EXPECT_NE(0, kt_json_parse(bad[i], &doc, err, sizeof(err))) TH_LOG("%s", bad[i]);
		EXPECT_NE(0, err[0]) TH_LOG("no message for %s", bad[i]);
		EXPECT_EQ(0, doc.n);
	}
}

TEST_HARNESS_MAIN
