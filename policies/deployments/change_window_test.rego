package regolith.deployments.change_window_test

import data.regolith.deployments.change_window

dm := {"projects": {"acme-prod": {"deployments": {
	"web": {"deployment": {"name": "web", "labels": [{"key": "owner", "value": "alice@example.com"}, {"key": "tier", "value": "frontend"}]}},
	"api": {"deployment": {"name": "api", "labels": [{"key": "owner", "value": "bob"}]}},
	"batch": {"deployment": {"name": "batch", "labels": []}},
	"ghost": {"deployment": {"name": "ghost", "labels": [{"key": "owner", "value": "ghost@example.com"}]}},
}}}}

cal := {
	"window": {"time_min": "2026-11-24T00:00:00Z", "time_max": "2026-12-10T00:00:00Z"},
	"event_types": ["default", "outOfOffice", "focusTime", "workingLocation", "fromGmail"],
	"calendars": {
		"alice@example.com": {"events": [
			{"id": "ooo1", "eventType": "outOfOffice", "summary": "Dentist", "status": "confirmed", "start": {"dateTime": "2026-11-25T13:00:00Z"}, "end": {"dateTime": "2026-11-25T16:00:00+00:00"}},
			{"id": "ft1", "eventType": "focusTime", "status": "confirmed", "start": {"dateTime": "2026-11-26T09:00:00Z"}, "end": {"dateTime": "2026-11-26T12:00:00Z"}},
			{"id": "ooo2", "eventType": "outOfOffice", "summary": "Holiday", "status": "confirmed", "start": {"date": "2026-12-01"}, "end": {"date": "2026-12-03"}},
			{"id": "ooo3", "eventType": "outOfOffice", "status": "cancelled", "start": {"dateTime": "2026-11-27T09:00:00Z"}, "end": {"dateTime": "2026-11-27T17:00:00Z"}},
			{"id": "ooo4", "eventType": "outOfOffice", "status": "confirmed", "start": {"dateTime": "2026-11-28T10:00:00+02:00"}, "end": {"dateTime": "2026-11-28T12:00:00+02:00"}},
		]},
		"bob@example.com": {"events": [{"id": "b1", "eventType": "outOfOffice", "status": "confirmed", "start": {"date": "2026-11-25"}, "end": {"date": "2026-11-26"}}]},
	},
}

at(d, t) := x if {
	x := change_window.decision with input as {"deployment": d, "time": t} with data.deployments as dm with data.calendar as cal
}

test_blocked_during_the_owners_out_of_office if {
	d := at("web", "2026-11-25T14:00:00Z")
	not d.allow
	some r in d.reasons
	startswith(r, "alice@example.com is out of office (\"Dentist\", 2026-11-25T13:00:00Z to 2026-11-25T16:00:00+00:00)")
}

test_allowed_outside_it if {
	at("web", "2026-11-25T12:59:59Z").allow
	at("web", "2026-11-25T16:00:00Z").allow # the end is exclusive
	at("web", "2026-11-26T10:00:00Z").allow # focus time is no out-of-office
}

test_all_day_events if {
	not at("web", "2026-12-01T00:00:00Z").allow
	not at("web", "2026-12-02T23:59:59Z").allow
	at("web", "2026-12-03T00:00:00Z").allow
}

test_cancelled_events_do_not_block if {
	at("web", "2026-11-27T10:00:00Z").allow
}

test_offsets_are_honoured if {
	not at("web", "2026-11-28T08:30:00Z").allow
	at("web", "2026-11-28T10:30:00Z").allow
	not at("web", "2026-11-28T10:30:00+02:00").allow
}

test_owner_from_domain_or_mapping if {
	not change_window.allow with input as {"deployment": "api", "time": "2026-11-25T10:00:00Z"} with data.deployments as dm with data.calendar as cal with data.change_window as {"owner_domain": "example.com"}
	change_window.allow with input as {"deployment": "api", "time": "2026-11-26T10:00:00Z"} with data.deployments as dm with data.calendar as cal with data.change_window as {"owner_domain": "example.com"}
	not change_window.allow with input as {"deployment": "api", "time": "2026-11-25T10:00:00Z"} with data.deployments as dm with data.calendar as cal with data.change_window as {"owners": {"bob": "bob@example.com"}}
	d := at("api", "2026-11-26T10:00:00Z")
	some r in d.reasons
	r == "the owner \"bob\" of deployment \"api\" has no known calendar (set data.change_window.owners or owner_domain)"
}

test_unknown_availability_refuses if {
	some r1 in at("ghost", "2026-11-26T10:00:00Z").reasons
	contains(r1, "data.calendar does not hold their calendar's events")
	some r2 in at("web", "2027-01-10T10:00:00Z").reasons
	startswith(r2, "the availability is unknown at 2027-01-10T10:00:00Z")
	d := change_window.decision with input as {"deployment": "web", "time": "2026-11-26T10:00:00Z"} with data.deployments as dm with data.calendar as object.union(cal, {"event_types": ["default"]})
	not d.allow
}

test_a_deployment_without_owner if {
	some r in at("batch", "2026-11-26T10:00:00Z").reasons
	r == "deployment \"batch\" has no \"owner\" label naming its owner"
	change_window.allow with input as {"deployment": "batch", "time": "2026-11-26T10:00:00Z"} with data.deployments as dm with data.calendar as cal with data.change_window as {"require_owner": false}
}

test_unknown_deployment_and_bad_time if {
	some r in at("nope", "2026-11-26T10:00:00Z").reasons
	startswith(r, "deployment \"nope\" is not in data.deployments")
	some r2 in at("web", "tomorrow").reasons
	r2 == "input.time \"tomorrow\" is not an RFC 3339 time"
}
