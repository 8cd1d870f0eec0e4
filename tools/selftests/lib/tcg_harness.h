/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's kselftest_harness.h with a per-test timeout fit for the
 * guest: the CPU is emulated (TCG) and the kernel has KASAN and lockdep on,
 * so a test that takes 3 s on hardware can take minutes. The Makefile builds
 * the kernel's own selftests (hmm-tests) with this header in place of the
 * harness; their code is unchanged.
 */
#include <kselftest_harness.h>

#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 600
