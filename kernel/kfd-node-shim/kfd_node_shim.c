// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only: make amdkfd count one GPU node on a machine that has none, so
 * that a process can open /dev/kfd and reach its ioctls' argument checks.
 *
 * Since 7.x, kfd_create_process() refuses to create a process when
 * kfd_gpu_node_num() is 0 ("no gpu node! Cannot create KFD process"), so on
 * a machine without an AMD GPU open("/dev/kfd") fails with EINVAL, where on
 * 6.12 it gave a process with a CPU-only topology. The project's guest has
 * no GPU: this kretprobe sets that one call's result to 1 while the module
 * is loaded. Nothing else changes: the process has no device, every gpu_id
 * lookup finds none (the ioctls' -EINVAL for an unknown gpu_id), and
 * kfd_gpu_node_num() has no other caller. Load it after amdgpu, unload it
 * before amdgpu.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>

static int one_node(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (!regs_return_value(regs))
		regs_set_return_value(regs, 1);
	return 0;
}

static struct kretprobe shim = {
	.kp.symbol_name = "kfd_gpu_node_num",
	.handler = one_node,
};

static int __init kfd_node_shim_init(void)
{
	int ret = register_kretprobe(&shim);

	if (ret)
		pr_err("kfd_node_shim: no kretprobe on kfd_gpu_node_num (amdgpu loaded?): %d\n",
		       ret);
	return ret;
}

static void __exit kfd_node_shim_exit(void)
{
	unregister_kretprobe(&shim);
}

module_init(kfd_node_shim_init);
module_exit(kfd_node_shim_exit);
MODULE_DESCRIPTION("Test-only: amdkfd counts one GPU node without a GPU");
MODULE_LICENSE("GPL");
