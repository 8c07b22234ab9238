# A small policy for bench/startup.mjs: the start-up cost of `regolith parse` and
# `regolith eval`, not the evaluation, is what is measured.
package x

import rego.v1

default allow := false

admins := {"alice", "carol"}

allow if input.user in admins

allow if {
	input.method == "GET"
	startswith(input.path, "/public/")
}

reasons contains "not an admin" if not input.user in admins
