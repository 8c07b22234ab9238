# "No file is shared outside the domain with write access" — the example policy over
# data.drive (the drive adapter). A violation is a permission with a writing role
# (owner, organizer, fileOrganizer, writer) granted to anyone (with or without the link),
# to another domain, or to a user or group whose e-mail address is outside the domain.
# Readers and commenters may be anyone: a reader link is not a violation.
#
# Settings in data.drive_sharing:
#   domain    the organisation's domain (required), e.g. "acme.example"
#   exempt    file ids not checked (optional)
#   allowed_writers  outside addresses that may write (optional), e.g. a partner's; matched
#             by address, and by permission id through data.drive.permission_ids (list
#             them in the adapter's permission_ids_for too: a permission does not always
#             show its address)
package regolith.drive_sharing

write_roles := {"owner", "organizer", "fileOrganizer", "writer"}

domain := lower(data.drive_sharing.domain)

default exempt := set()

exempt := {id | some id in data.drive_sharing.exempt}

allowed_writers := {lower(e) | some e in object.get(data.drive_sharing, "allowed_writers", [])}

allowed_ids := {id | some e in object.get(data.drive_sharing, "allowed_writers", []); id := data.drive.permission_ids[e]}

allowed(p) if p.id in allowed_ids

allowed(p) if lower(p.emailAddress) in allowed_writers

# Why a permission reaches outside the domain (undefined when it does not).
outside(p) := "anyone" if p.type == "anyone"

outside(p) := sprintf("the domain %s", [p.domain]) if {
	p.type == "domain"
	lower(p.domain) != domain
}

outside(p) := sprintf("%s %s", [p.type, object.get(p, "emailAddress", "(no address)")]) if {
	p.type in {"user", "group"}
	not endswith(lower(object.get(p, "emailAddress", "")), concat("", ["@", domain]))
}

violations contains {"file": id, "title": object.get(f, "title", ""), "permission": object.get(p, "id", ""), "message": msg} if {
	some id, f in data.drive.files
	not id in exempt
	some p in f.permissions
	p.role in write_roles
	who := outside(p)
	not allowed(p)
	msg := sprintf("%q is shared with %s as %s", [object.get(f, "title", id), who, p.role])
}

# Files the adapter could not read the permissions of cannot be shown to be safe.
unreadable contains id if {
	some id, f in data.drive.files
	f.permissions_unreadable == true
}

default allow := false

allow if count(violations) == 0

# The adapter's listing did not cover the whole corpus (incompleteSearch): allow may miss files.
default incomplete := false

incomplete if data.drive.sync.incomplete_search == true
