# "How bad is this native crash, and which known crash is it?" — the example rule for the
# crash_report event adapter (POST /v1/events/<name>, Content-Type application/x-protobuf)
# and for `regolith eval --input-format tombstone -i crash.pb`. The input is the Tombstone
# decoded as the README describes (enum names, 64-bit values as hex strings, threads keyed
# by tid).
#
# Settings (optional) in data.crash_triage:
#   top_frames     how many frames of the crashing thread are read (default 5)
#   fingerprints   the build fingerprints of known builds (an allow-list; default: none)
#   bucket_skip_files  libraries whose frames the bucket looks past, as the abort
#                  machinery of SIGABRT sits on top of the real culprit (default ["libc.so"])
#
# The answer: {"severity": "critical" | "high" | "medium" | "low", "bucket": a stable string
# grouping reports of the same crash (signal and first frame, no addresses that move with
# ASLR), "reasons": why, "known_build": whether the build is on the allow-list}.
package regolith.crash_triage

default settings := {}

settings := data.crash_triage

top_n := object.get(settings, "top_frames", 5)

fingerprints := object.get(settings, "fingerprints", [])

bucket_skip_files := object.get(settings, "bucket_skip_files", ["libc.so"])

# --- the signal ---------------------------------------------------------------------------

sig := object.get(input, "signal_info", {})

default signal_name := "no signal"

signal_name := sig.name if sig.name != ""

signal_name := sprintf("signal %d", [sig.number]) if {
	object.get(sig, "name", "") == ""
	object.get(sig, "number", 0) != 0
}

# Signals of memory corruption or a broken instruction stream.
fatal_signals := {"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGSYS", "SIGTRAP"}

# Memory tagging reports a mismatched pointer tag: corruption caught in the act.
mte_codes := {"SEGV_MTESERR", "SEGV_MTEAERR"}

# --- the abort message and memory-error causes --------------------------------------------

abort_message := object.get(input, "abort_message", "")

# Each cause with a memory error: [tool, type, what the tool said].
memory_errors contains [c.memory_error.tool, c.memory_error.type, object.get(c, "human_readable", "")] if {
	some c in object.get(input, "causes", [])
	c.memory_error
}

# Error types that mean a heap object was misused (exploitable as a rule).
heap_misuse := {"USE_AFTER_FREE", "DOUBLE_FREE", "INVALID_FREE", "BUFFER_OVERFLOW", "BUFFER_UNDERFLOW"}

# --- the crashing thread ------------------------------------------------------------------

crashing_thread := input.threads[format_int(input.tid, 10)]

default top_frames := []

top_frames := array.slice(object.get(crashing_thread, "current_backtrace", []), 0, top_n)

base_name(path) := name if {
	parts := split(path, "/")
	name := parts[count(parts) - 1]
}

# A frame by what stays the same across runs: the function (or, without symbols, the
# library and the offset into it).
frame_key(f) := f.function_name if object.get(f, "function_name", "") != ""

frame_key(f) := sprintf("%s+%s", [base_name(object.get(f, "file_name", "")), object.get(f, "rel_pc", "0x0")]) if {
	object.get(f, "function_name", "") == ""
}

# The frame a bucket is named after: the first one outside bucket_skip_files, else the first.
culprits := [f | some f in top_frames; not base_name(object.get(f, "file_name", "")) in bucket_skip_files]

default culprit_frame := "no frames"

culprit_frame := frame_key(top_frames[0]) if count(culprits) == 0

culprit_frame := frame_key(culprits[0])

# --- the build ----------------------------------------------------------------------------

fingerprint := object.get(input, "build_fingerprint", "")

default known_build := false

known_build if fingerprint in fingerprints

# --- severity ------------------------------------------------------------------------------

rank := {"low": 0, "medium": 1, "high": 2, "critical": 3}

levels contains "critical" if {
	some e in memory_errors
	e[1] in heap_misuse
}

levels contains "critical" if sig.code_name in mte_codes

levels contains "high" if signal_name in fatal_signals

levels contains "high" if count(memory_errors) > 0

levels contains "medium" if signal_name == "SIGABRT"

levels contains "medium" if abort_message != ""

levels contains "low"

severity := s if {
	top := max({rank[l] | some l in levels})
	some s, r in rank
	r == top
}

# --- reasons -------------------------------------------------------------------------------

reasons contains sprintf("signal %s (%s)", [signal_name, sig.code_name]) if {
	input.signal_info
	object.get(sig, "code_name", "") != ""
}

reasons contains sprintf("signal %s", [signal_name]) if {
	input.signal_info
	object.get(sig, "code_name", "") == ""
}

reasons contains "the report has no signal information" if not input.signal_info

reasons contains sprintf("fault address %s", [sig.fault_address]) if sig.has_fault_address

reasons contains sprintf("abort message: %s", [abort_message]) if abort_message != ""

reasons contains sprintf("memory error: %s %s: %s", [e[0], e[1], e[2]]) if some e in memory_errors

reasons contains sprintf("crashing thread %d (%s): %s", [input.tid, crashing_thread.name, concat(" <- ", [frame_key(f) | some f in top_frames])]) if {
	count(top_frames) > 0
}

reasons contains sprintf("the crashing thread (tid %d) is not in the report", [input.tid]) if not crashing_thread

reasons contains sprintf("unknown build: %q is not on the fingerprint allow-list", [fingerprint]) if not known_build

reasons contains sprintf("the report carries %d field(s) this server does not know", [count(input._unknown_fields)]) if {
	count(input._unknown_fields) > 0
}

# The first memory error's type, when the tools found one (sorted: stable across orderings).
error_kinds := [k | some e in memory_errors; k := e[1]]

bucket := concat(":", array.concat(array.concat([signal_name], array.slice(sort(error_kinds), 0, 1)), [culprit_frame]))

# The answer the sender gets.
decision := {
	"severity": severity,
	"bucket": bucket,
	"reasons": reasons,
	"known_build": known_build,
}
