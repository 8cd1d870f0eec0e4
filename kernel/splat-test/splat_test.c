// SPDX-License-Identifier: GPL-2.0
/*
 * splat_test - make the guest kernel report a problem on purpose.
 *
 * scripts/vm-run must fail a run whose dmesg shows a splat even when the
 * command itself succeeded. This module is how the test suite proves it:
 *
 *   kind=warn   WARN_ON() at load time
 *   kind=known  WARN() with a message, for vm-run --known-warning
 *   kind=leak   allocate and lose buffers, for kmemleak to find
 *
 * Loading succeeds in both cases, so only the kernel log tells.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *kind = "warn";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "what to trigger: warn, known or leak");

static int __init splat_test_init(void)
{
	if (!strcmp(kind, "warn")) {
		WARN_ON(1);
	} else if (!strcmp(kind, "known")) {
		WARN(1, "splat_test: a warning the run knows\n");
	} else if (!strcmp(kind, "leak")) {
		int i;

		/*
		 * Lose many zeroed buffers: a stale copy of a pointer on some
		 * stack can hide one of them from kmemleak, not all of them,
		 * and zeroed ones hold no allocator pointer to each other.
		 */
		for (i = 0; i < 32; i++)
			if (!kzalloc(1024, GFP_KERNEL))
				return -ENOMEM;
	} else {
		return -EINVAL;
	}
	return 0;
}

static void __exit splat_test_exit(void)
{
}

module_init(splat_test_init);
module_exit(splat_test_exit);
MODULE_DESCRIPTION("Trigger a kernel warning or leak to test the guest runner");
MODULE_LICENSE("GPL");
