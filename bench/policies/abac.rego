# Attribute-based access control: attributes of the user, the resource and the
# environment (time of day, day of week, network, MFA), department membership and
# clearance levels.
package abac

default allow := false

clearance_levels := {"public": 0, "internal": 1, "confidential": 2, "secret": 3, "top_secret": 4}

actions_by_role := {
	"viewer": {"read"},
	"editor": {"read", "write"},
	"manager": {"read", "write", "approve"},
	"auditor": {"read", "export"},
}

allow if {
	not user.suspended
	input.action in actions_by_role[user.role]
	clearance_ok
	department_ok
	time_ok
	network_ok
}

user := input.subject.attributes

resource := input.resource.attributes

clearance_ok if clearance_levels[user.clearance] >= clearance_levels[resource.classification]

department_ok if user.department == resource.department

department_ok if user.department in resource.shared_with

# Managers approve only inside their own department.
department_ok if {
	resource.classification == "public"
	input.action == "read"
}

time_ok if {
	ns := time.parse_rfc3339_ns(input.environment.time)
	[hour, _, _] := time.clock(ns)
	hour >= 7
	hour < 19
	not time.weekday(ns) in {"Saturday", "Sunday"}
}

# On-call staff may work at any time.
time_ok if "on-call" in user.groups

network_ok if input.environment.network == "corporate"

network_ok if {
	input.environment.network == "vpn"
	input.environment.mfa == true
}

network_ok if {
	clearance_levels[resource.classification] <= 1
	input.environment.mfa == true
}
