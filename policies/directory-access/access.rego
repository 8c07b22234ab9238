# "May this user in?" — the example rule over data.directory (the `directory` adapter):
# the user must be an active account (known, not deleted, not suspended, not archived),
# in one of the allowed org units or below it, and a member of one of the required groups,
# directly or through nested groups (data.directory.member_of, which the adapter computes
# from every group's members: what the API's hasMember answers).
#
# Input: {"user": "<email or alias>"}.
# Settings (optional) in data.directory_access:
#   org_units   org unit paths the user must be in or below (default ["/"]: anywhere)
#   groups      group emails; membership of any one is enough (default []: no group needed)
package regolith.directory.access

default settings := {}

settings := data.directory_access

org_units := object.get(settings, "org_units", ["/"])

required_groups := {lower(g) | some g in object.get(settings, "groups", [])}

# The primary email of the user the input names (an alias resolves to its account).
email := data.directory.aliases[lower(input.user)]

email := lower(input.user) if not data.directory.aliases[lower(input.user)]

user := data.directory.users[email]

deleted if {
	not user
	some d in object.get(data.directory, "deleted_users", {})
	lower(d.primaryEmail) == email
}

# A path is under an org unit when it is that unit or below it ("/" holds every path).
under(path, ou) if path == ou

under(path, ou) if startswith(path, concat("", [trim_suffix(ou, "/"), "/"]))

in_org_unit if {
	some ou in org_units
	under(user.orgUnitPath, ou)
}

in_required_group if count(required_groups) == 0

in_required_group if {
	some g in required_groups
	g in object.get(data.directory.member_of, email, [])
}

reasons contains sprintf("user %s is deleted", [email]) if deleted

reasons contains sprintf("user %s is not in the directory", [email]) if {
	not user
	not deleted
}

reasons contains sprintf("user %s is suspended", [email]) if user.suspended

reasons contains sprintf("user %s is archived", [email]) if user.archived

reasons contains sprintf("org unit %s is not under any of %v", [user.orgUnitPath, org_units]) if {
	user
	not in_org_unit
}

reasons contains sprintf("user %s is in none of the groups %v", [email, sort(required_groups)]) if {
	user
	not in_required_group
}

default allow := false

allow if count(reasons) == 0

decision := {"allow": allow, "reasons": reasons}
