package regolith.drive_sharing_test

import data.regolith.drive_sharing

settings := {"domain": "acme.example"}

owner := {"id": "p-owner", "type": "user", "role": "owner", "emailAddress": "alice@acme.example"}

drive_of(perms) := {"files": {"f1": {"id": "f1", "title": "Plan", "permissions": perms}}}

test_internal_sharing_is_allowed if {
	d := drive_of([owner, {"id": "p2", "type": "group", "role": "writer", "emailAddress": "Team@ACME.example"}, {"id": "acme-domain", "type": "domain", "role": "writer", "domain": "acme.example"}])
	drive_sharing.allow with data.drive as d with data.drive_sharing as settings
	count(drive_sharing.violations) == 0 with data.drive as d with data.drive_sharing as settings
}

test_anyone_writer_is_a_violation if {
	d := drive_of([owner, {"id": "anyoneWithLink", "type": "anyone", "role": "writer", "withLink": true}])
	v := drive_sharing.violations with data.drive as d with data.drive_sharing as settings
	v == {{"file": "f1", "title": "Plan", "permission": "anyoneWithLink", "message": "\"Plan\" is shared with anyone as writer"}}
	not drive_sharing.allow with data.drive as d with data.drive_sharing as settings
}

test_a_reader_link_is_not if {
	d := drive_of([owner, {"id": "anyoneWithLink", "type": "anyone", "role": "reader", "withLink": true}, {"id": "p3", "type": "user", "role": "commenter", "emailAddress": "bob@other.example"}])
	drive_sharing.allow with data.drive as d with data.drive_sharing as settings
}

test_other_domain_writers_are_violations if {
	d := drive_of([
		owner,
		{"id": "p4", "type": "user", "role": "writer", "emailAddress": "eve@other.example"},
		{"id": "other-domain", "type": "domain", "role": "fileOrganizer", "domain": "other.example"},
		{"id": "p5", "type": "user", "role": "organizer", "emailAddress": "mallory@acme.example.evil"},
	])
	v := drive_sharing.violations with data.drive as d with data.drive_sharing as settings
	{x.permission | some x in v} == {"p4", "other-domain", "p5"}
	some x in v
	x.message == "\"Plan\" is shared with the domain other.example as fileOrganizer"
}

test_an_outside_owner_is_a_violation if {
	d := drive_of([{"id": "p6", "type": "user", "role": "owner", "emailAddress": "ext@gmail.example"}])
	count(drive_sharing.violations) == 1 with data.drive as d with data.drive_sharing as settings
}

test_exempt_files_are_not_checked if {
	d := drive_of([{"id": "anyone", "type": "anyone", "role": "writer"}])
	drive_sharing.allow with data.drive as d with data.drive_sharing as object.union(settings, {"exempt": ["f1"]})
}

test_no_files_is_allowed if {
	drive_sharing.allow with data.drive as {"files": {}} with data.drive_sharing as settings
}

test_unreadable_permissions_are_listed if {
	d := {"files": {"f9": {"id": "f9", "permissions": [], "permissions_unreadable": true}}}
	drive_sharing.unreadable == {"f9"} with data.drive as d with data.drive_sharing as settings
}

test_allowed_writers_by_address_or_permission_id if {
	d := {
		"files": {"f1": {"id": "f1", "title": "Plan", "permissions": [
			{"id": "p7", "type": "user", "role": "writer", "emailAddress": "Partner@Vendor.example"},
			{"id": "pid-hidden", "type": "user", "role": "writer"},
			{"id": "p8", "type": "user", "role": "writer", "emailAddress": "other@vendor.example"},
		]}},
		"permission_ids": {"hidden@vendor.example": "pid-hidden"},
	}
	cfg := object.union(settings, {"allowed_writers": ["partner@vendor.example", "hidden@vendor.example"]})
	v := drive_sharing.violations with data.drive as d with data.drive_sharing as cfg
	{x.permission | some x in v} == {"p8"}
}

test_incomplete_listing_is_flagged if {
	drive_sharing.incomplete with data.drive as {"files": {}, "sync": {"incomplete_search": true}} with data.drive_sharing as settings
	not drive_sharing.incomplete with data.drive as {"files": {}, "sync": {}} with data.drive_sharing as settings
}
