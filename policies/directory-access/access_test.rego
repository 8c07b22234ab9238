package regolith.directory.access_test

import data.regolith.directory.access

directory := {
	"users": {
		"ann@example.com": {"primaryEmail": "ann@example.com", "orgUnitPath": "/Eng/Backend", "suspended": false, "aliases": ["annie@example.com"]},
		"bob@example.com": {"primaryEmail": "bob@example.com", "orgUnitPath": "/Eng", "suspended": true},
		"cat@example.com": {"primaryEmail": "cat@example.com", "orgUnitPath": "/Sales", "suspended": false},
		"dan@example.com": {"primaryEmail": "dan@example.com", "orgUnitPath": "/Engineering", "suspended": false},
		"eve@example.com": {"primaryEmail": "eve@example.com", "orgUnitPath": "/Eng", "suspended": false},
	},
	"deleted_users": {"9": {"id": "9", "primaryEmail": "gus@example.com", "orgUnitPath": "/Eng"}},
	"aliases": {"annie@example.com": "ann@example.com"},
	"member_of": {
		"ann@example.com": ["backend@example.com", "staff@example.com"],
		"bob@example.com": ["staff@example.com"],
		"cat@example.com": ["staff@example.com"],
		"dan@example.com": ["staff@example.com"],
		"eve@example.com": ["backend@example.com"],
	},
}

settings := {"org_units": ["/Eng"], "groups": ["Staff@example.com"]}

decide(u) := d if {
	d := access.decision with input as {"user": u} with data.directory as directory with data.directory_access as settings
}

test_an_active_member_in_the_org_unit_is_allowed if {
	d := decide("ann@example.com")
	d.allow
	count(d.reasons) == 0
}

test_an_alias_and_any_case_resolve_to_the_account if {
	decide("Annie@Example.com").allow
}

test_a_suspended_user_is_not if {
	d := decide("bob@example.com")
	not d.allow
	d.reasons == {"user bob@example.com is suspended"}
}

test_a_deleted_user_is_not if {
	d := decide("gus@example.com")
	not d.allow
	d.reasons == {"user gus@example.com is deleted"}
}

test_an_unknown_user_is_not if {
	d := decide("nobody@example.com")
	d.reasons == {"user nobody@example.com is not in the directory"}
}

test_outside_the_org_unit_is_not if {
	d := decide("cat@example.com")
	d.reasons == {"org unit /Sales is not under any of [\"/Eng\"]"}
}

test_a_sibling_with_a_common_prefix_is_not_under if {
	not decide("dan@example.com").allow
}

test_without_the_group_is_not if {
	d := decide("eve@example.com")
	d.reasons == {"user eve@example.com is in none of the groups [\"staff@example.com\"]"}
}

test_defaults_let_every_active_user_in if {
	access.allow with input as {"user": "cat@example.com"} with data.directory as directory with data.directory_access as {}
	not access.allow with input as {"user": "bob@example.com"} with data.directory as directory with data.directory_access as {}
}

test_the_root_holds_every_path if {
	access.under("/Sales", "/")
	access.under("/Eng", "/Eng")
	not access.under("/Engineering", "/Eng")
}
