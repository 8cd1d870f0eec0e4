/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the emulated device: what it does with the memory, next
 * to the helper's drm_userptr events (joined by batch id). The eviction
 * verdict of kfdtrace needs both: no device access may succeed between an
 * evict and the restore that follows it.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM userptr_emu

#if !defined(_USERPTR_EMU_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _USERPTR_EMU_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(userptr_emu_evict,
	    TP_PROTO(u64 batch_id, u32 handle, unsigned int index),
	    TP_ARGS(batch_id, handle, index),
	    TP_STRUCT__entry(__field(u64, batch_id)
			     __field(u32, handle)
			     __field(unsigned int, index)),
	    TP_fast_assign(__entry->batch_id = batch_id;
			   __entry->handle = handle;
			   __entry->index = index;),
	    TP_printk("batch=%llu handle=%u range=%u",
		      __entry->batch_id, __entry->handle, __entry->index)
);

TRACE_EVENT(userptr_emu_restore,
	    TP_PROTO(u64 batch_id, u32 handle, int ret, bool evicted),
	    TP_ARGS(batch_id, handle, ret, evicted),
	    TP_STRUCT__entry(__field(u64, batch_id)
			     __field(u32, handle)
			     __field(int, ret)
			     __field(bool, evicted)),
	    TP_fast_assign(__entry->batch_id = batch_id;
			   __entry->handle = handle;
			   __entry->ret = ret;
			   __entry->evicted = evicted;),
	    TP_printk("batch=%llu handle=%u ret=%d still_evicted=%d",
		      __entry->batch_id, __entry->handle, __entry->ret,
		      __entry->evicted)
);

TRACE_EVENT(userptr_emu_access,
	    TP_PROTO(u64 batch_id, u32 handle, u64 va, u64 len, bool write,
		     int ret),
	    TP_ARGS(batch_id, handle, va, len, write, ret),
	    TP_STRUCT__entry(__field(u64, batch_id)
			     __field(u64, va)
			     __field(u64, len)
			     __field(u32, handle)
			     __field(bool, write)
			     __field(int, ret)),
	    TP_fast_assign(__entry->batch_id = batch_id;
			   __entry->va = va;
			   __entry->len = len;
			   __entry->handle = handle;
			   __entry->write = write;
			   __entry->ret = ret;),
	    TP_printk("batch=%llu handle=%u %s va=0x%llx len=%llu ret=%d",
		      __entry->batch_id, __entry->handle,
		      __entry->write ? "write" : "read", __entry->va,
		      __entry->len, __entry->ret)
);

#endif /* _USERPTR_EMU_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE userptr_emu_trace
#include <trace/define_trace.h>
