// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin that counts how many times each guest kernel
 * instruction ran: tools/bench/icount-profile.sh loads it into the guest
 * of scripts/vm-run (--qemu-plugin) and attributes the counts to the
 * guest's functions. perf in a TCG guest takes its samples where QEMU
 * delivers the timer interrupt, at the end of a translated block, and in
 * the helper's loops its shares were off by a factor of two or more; these
 * counts are exact.
 *
 * Each translated block of kernel code (at or above lo=, by default the
 * kernel's text) gets an inline counter of its executions; at QEMU's exit
 * the count of every instruction is the sum over the blocks that hold it,
 * written as "address count" lines (the address in 16 hex digits, so
 * that a text sort orders them), sorted by address, to out=.
 *
 * Debian ships no qemu-plugin.h: the few declarations below are those of
 * QEMU's include/qemu/qemu-plugin.h at plugin API version 1, which the
 * QEMU of Debian 12 (7.2) loads. Later QEMUs dropped
 * qemu_plugin_register_vcpu_tb_exec_inline() for per-vCPU scoreboards;
 * this plugin then fails to load, and the profile says so.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op, void *ptr,
					      uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

/* one translation of a block: its executions and its instructions */
struct block {
	uint64_t count;
	size_t n;
	uint64_t addr[];
};

static struct block **blocks;
static size_t nblocks, cap;
static bool nomem;
/* translations may run on several vCPU threads */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *out_path;
static uint64_t lo = 0xffffffff80000000ull;

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct block *b, **nb;

	if (qemu_plugin_tb_vaddr(tb) < lo)
		return;
	b = calloc(1, sizeof(*b) + n * sizeof(b->addr[0]));
	if (!b) {
		nomem = true;
		return;
	}
	b->n = n;
	for (i = 0; i < n; i++)
		b->addr[i] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
	pthread_mutex_lock(&lock);
	if (nblocks == cap) {
		nb = realloc(blocks, (cap ? cap * 2 : 65536) * sizeof(*blocks));
		if (!nb) {
			nomem = true;
			pthread_mutex_unlock(&lock);
			free(b);
			return;
		}
		blocks = nb;
		cap = cap ? cap * 2 : 65536;
	}
	blocks[nblocks++] = b;
	pthread_mutex_unlock(&lock);
	/* a block retranslated gets a new record: the sums add them up */
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
}

static int by_addr(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	size_t i, j, m = 0, total = 0;
	uint64_t (*v)[2], a, c;
	FILE *f;

	for (i = 0; i < nblocks; i++)
		if (blocks[i]->count)
			total += blocks[i]->n;
	v = malloc((total + 1) * sizeof(*v));
	f = fopen(out_path, "w");
	if (!v || !f) {
		perror(out_path);
		goto out;
	}
	for (i = 0; i < nblocks; i++)
		for (j = 0; blocks[i]->count && j < blocks[i]->n; j++) {
			v[m][0] = blocks[i]->addr[j];
			v[m++][1] = blocks[i]->count;
		}
	qsort(v, m, sizeof(*v), by_addr);
	for (i = 0; i < m; i++) {
		a = v[i][0];
		c = v[i][1];
		while (i + 1 < m && v[i + 1][0] == a)
			c += v[++i][1];
		fprintf(f, "%016llx %llu\n", (unsigned long long)a, (unsigned long long)c);
	}
	/* a record that could not be made: the counts are short, say so */
	if (nomem)
		fprintf(f, "# incomplete: out of memory\n");
out:
	if (f)
		fclose(f);
	free(v);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
		else if (!strncmp(argv[i], "lo=", 3))
			lo = strtoull(argv[i] + 3, NULL, 16);
	}
	if (!out_path) {
		fprintf(stderr, "icount_plugin: out=FILE is required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
