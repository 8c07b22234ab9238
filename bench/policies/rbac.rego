# Role-based access control with role bindings in data (as in OPA's RBAC example):
#   data.rbac.user_roles[user]  -> list of role names
#   data.rbac.role_grants[role] -> list of {"action", "type"} grants
#   data.rbac.role_inherits[role] -> roles whose grants this role also has (one level)
# The input names a user, an action and a resource (type, id, tenant).
package rbac

default allow := false

# Administrators may do anything in their own tenant.
allow if {
	user_is_admin
	input.resource.tenant == data.rbac.user_tenant[input.user]
}

allow if {
	input.resource.tenant == data.rbac.user_tenant[input.user]
	some grant in user_grants
	grant.action == input.action
	grant.type == input.resource.type
}

user_is_admin if "admin" in data.rbac.user_roles[input.user]

user_grants contains grant if {
	some role in data.rbac.user_roles[input.user]
	some grant in data.rbac.role_grants[role]
}

user_grants contains grant if {
	some role in data.rbac.user_roles[input.user]
	some parent in data.rbac.role_inherits[role]
	some grant in data.rbac.role_grants[parent]
}
