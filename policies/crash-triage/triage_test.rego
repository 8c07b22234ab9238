package regolith.crash_triage_test

import data.regolith.crash_triage

fp := "acme/phone/phone:15/AP3A.240905.015/12345678:user/release-keys"

frame(fn, file, rel) := {"function_name": fn, "file_name": file, "rel_pc": rel, "pc": "0x7a00001000", "sp": "0x7ff0000000", "function_offset": "0x10", "file_map_offset": "0x0", "build_id": ""}

segv := {
	"build_fingerprint": fp,
	"tid": 4321,
	"abort_message": "",
	"signal_info": {"number": 11, "name": "SIGSEGV", "code": 1, "code_name": "SEGV_MAPERR", "has_fault_address": true, "fault_address": "0x0"},
	"causes": [{"human_readable": "null pointer dereference"}],
	"threads": {"4321": {"id": 4321, "name": "RenderThread", "current_backtrace": [
		frame("Renderer::draw", "/data/app/lib/arm64/librender.so", "0x1234"),
		frame("", "/data/app/lib/arm64/libfoo.so", "0x99"),
		frame("Loop::run", "/data/app/lib/arm64/librender.so", "0x2000"),
		frame("start", "/system/lib64/libc.so", "0x10"),
		frame("clone", "/system/lib64/libc.so", "0x20"),
		frame("never", "/system/lib64/libc.so", "0x30"),
	]}},
	"_unknown_fields": [],
}

test_a_null_dereference_is_high_and_bucketed_by_its_first_frame if {
	d := crash_triage.decision with input as segv with data.crash_triage as {"fingerprints": [fp]}
	d.severity == "high"
	d.bucket == "SIGSEGV:Renderer::draw"
	d.known_build
	"signal SIGSEGV (SEGV_MAPERR)" in d.reasons
	"fault address 0x0" in d.reasons
	"crashing thread 4321 (RenderThread): Renderer::draw <- libfoo.so+0x99 <- Loop::run <- start <- clone" in d.reasons
}

test_top_frames_is_configurable if {
	d := crash_triage.decision with input as segv with data.crash_triage as {"fingerprints": [fp], "top_frames": 2}
	"crashing thread 4321 (RenderThread): Renderer::draw <- libfoo.so+0x99" in d.reasons
}

test_an_unknown_build_is_a_reason if {
	d := crash_triage.decision with input as segv with data.crash_triage as {"fingerprints": ["other"]}
	not d.known_build
	sprintf("unknown build: %q is not on the fingerprint allow-list", [fp]) in d.reasons
	d2 := crash_triage.decision with input as segv
	not d2.known_build
}

test_a_heap_use_after_free_is_critical if {
	uaf := object.union(segv, {
		"signal_info": {"number": 11, "name": "SIGSEGV", "code": 9, "code_name": "SEGV_MTESERR", "has_fault_address": true, "fault_address": "0xb00007a12345670"},
		"causes": [{"human_readable": "[MTE]: Use After Free, 0 bytes into a 32-byte allocation", "details": "memory_error", "memory_error": {"tool": "SCUDO", "type": "USE_AFTER_FREE"}}],
	})
	d := crash_triage.decision with input as uaf with data.crash_triage as {"fingerprints": [fp]}
	d.severity == "critical"
	d.bucket == "SIGSEGV:USE_AFTER_FREE:Renderer::draw"
	"memory error: SCUDO USE_AFTER_FREE: [MTE]: Use After Free, 0 bytes into a 32-byte allocation" in d.reasons
}

test_an_abort_is_medium_and_looks_past_libc if {
	abort := object.union(segv, {
		"abort_message": "Check failed: x != nullptr",
		"signal_info": {"number": 6, "name": "SIGABRT", "code": -1, "code_name": "SI_TKILL", "has_fault_address": false, "fault_address": "0x0"},
		"causes": [],
		"threads": {"4321": {"id": 4321, "name": "main", "current_backtrace": [
			frame("abort", "/apex/com.android.runtime/lib64/bionic/libc.so", "0x1"),
			frame("Check", "/system/lib64/libbase.so", "0x2"),
		]}},
	})
	d := crash_triage.decision with input as abort with data.crash_triage as {"fingerprints": [fp]}
	d.severity == "medium"
	d.bucket == "SIGABRT:Check"
	"abort message: Check failed: x != nullptr" in d.reasons
	not "fault address 0x0" in d.reasons
}

test_a_report_without_its_crashing_thread_or_signal if {
	bare := {"build_fingerprint": fp, "tid": 7, "abort_message": "", "threads": {}, "causes": [], "_unknown_fields": [{"path": "", "field": 500, "wire_type": 0, "reserved": true}]}
	d := crash_triage.decision with input as bare with data.crash_triage as {"fingerprints": [fp]}
	d.severity == "low"
	d.bucket == "no signal:no frames"
	"the crashing thread (tid 7) is not in the report" in d.reasons
	"the report has no signal information" in d.reasons
	"the report carries 1 field(s) this server does not know" in d.reasons
}
