# HTTP API authorization for a small service.
#
# Input (from the API gateway):
#   {"method": "GET", "path": ["finance", "salary", "alice"], "user": "alice"}
# Data (data.json): users with roles, and which roles may call which endpoints.
package httpapi.authz

default allow := false

# Anyone may read the public health and docs endpoints.
allow if {
	input.method == "GET"
	input.path[0] in {"health", "docs"}
}

# Employees may read their own salary.
allow if {
	input.method == "GET"
	input.path == ["finance", "salary", input.user]
}

# Managers may read the salaries of the people who report to them.
allow if {
	input.method == "GET"
	input.path = ["finance", "salary", employee]
	employee in data.users[input.user].reports
}

# Everything else is decided by role grants.
allow if {
	some role in user_roles
	some grant in data.role_grants[role]
	grant.method == input.method
	glob.match(grant.path, ["/"], concat("/", input.path))
}

user_roles contains role if {
	some role in data.users[input.user].roles
}

# Why a request was denied, for the audit log.
reasons contains "unknown user" if not data.users[input.user]

reasons contains msg if {
	data.users[input.user]
	not allow
	msg := sprintf("%s /%s is not permitted for %s", [input.method, concat("/", input.path), input.user])
}
