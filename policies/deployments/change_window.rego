# "No deployment during an out-of-office block of its owner." It reads data.deployments
# (the deployment_manager adapter) for the deployment's labels and data.calendar (the
# calendar adapter) for the owner's outOfOffice events.
#
# Input: {"deployment": "web", "project": "p" (optional when one project has it),
#         "time": "2026-11-25T14:00:00Z" (RFC 3339)}
# Output: reasons (set of strings), allow, decision {allow, reasons}.
#
# The owner is the value of the deployment's label `owner` (GCP label values hold no "@"
# or "."; so the value is looked up in `owners`, used as is when it holds an "@", or gets
# "@" + owner_domain). Their calendar (its id is their e-mail) must be in data.calendar,
# read with outOfOffice events over a window holding the time; otherwise availability is
# unknown and the deployment is refused (never laxer). All-day events ({date}) cover their
# dates from 00:00 UTC; the end date is exclusive, as the calendar API has it.
#
# Settings (optional) in data.change_window:
#   owner_label     the label naming the owner (default "owner")
#   owners          {label value: calendar id}
#   owner_domain    e-mail domain added to label values without "@"
#   require_owner   refuse deployments without the label (default true)
package regolith.deployments.change_window

default settings := {}

settings := data.change_window

owner_label := object.get(settings, "owner_label", "owner")

require_owner := object.get(settings, "require_owner", true)

# ---- the deployment and its owner ----------------------------------------------------------

project := input.project

project := p if {
	not input.project
	ps := [x | some x, pr in data.deployments.projects; pr.deployments[input.deployment]]
	count(ps) == 1
	p := ps[0]
}

deployment := data.deployments.projects[project].deployments[input.deployment].deployment

labels := {l.key: l.value | some l in object.get(deployment, "labels", [])}

owner := settings.owners[labels[owner_label]]

owner := labels[owner_label] if {
	not settings.owners[labels[owner_label]]
	contains(labels[owner_label], "@")
}

owner := concat("@", [labels[owner_label], settings.owner_domain]) if {
	not settings.owners[labels[owner_label]]
	not contains(labels[owner_label], "@")
	settings.owner_domain
}

# ---- time ----------------------------------------------------------------------------------

t := time.parse_rfc3339_ns(input.time)

# Start or end of an event in ns: {dateTime} as given, {date} at 00:00 UTC.
instant(x) := time.parse_rfc3339_ns(x.dateTime)

instant(x) := time.parse_rfc3339_ns(concat("", [x.date, "T00:00:00Z"])) if not x.dateTime

# An event time as the calendar gave it.
shown(x) := x.dateTime

shown(x) := x.date if not x.dateTime

calendar := data.calendar.calendars[owner]

window_holds_time if {
	time.parse_rfc3339_ns(data.calendar.window.time_min) <= t
	t < time.parse_rfc3339_ns(data.calendar.window.time_max)
}

# The owner's out-of-office events covering the time.
blocks contains e if {
	some e in calendar.events
	e.eventType == "outOfOffice"
	object.get(e, "status", "confirmed") != "cancelled"
	instant(e.start) <= t
	t < instant(e.end)
}

# ---- reasons -------------------------------------------------------------------------------

reasons contains "the input names no deployment" if not input.deployment

reasons contains sprintf("input.time %q is not an RFC 3339 time", [input.time]) if not t

reasons contains sprintf("deployment %q is not in data.deployments (or in several projects: name the project)", [input.deployment]) if {
	input.deployment
	not deployment
}

reasons contains sprintf("deployment %q has no %q label naming its owner", [input.deployment, owner_label]) if {
	require_owner
	deployment
	not labels[owner_label]
}

reasons contains sprintf("the owner %q of deployment %q has no known calendar (set data.change_window.owners or owner_domain)", [labels[owner_label], input.deployment]) if {
	labels[owner_label]
	not owner
}

reasons contains sprintf("the availability of %s is unknown: data.calendar does not hold their calendar's events", [owner]) if {
	owner
	not calendar.events
}

reasons contains "the availability is unknown: data.calendar was not read for outOfOffice events" if {
	owner
	calendar.events
	not "outOfOffice" in data.calendar.event_types
}

reasons contains sprintf("the availability is unknown at %s: data.calendar covers %s to %s", [input.time, data.calendar.window.time_min, data.calendar.window.time_max]) if {
	owner
	calendar.events
	t
	not window_holds_time
}

reasons contains sprintf("%s is out of office (%q, %s to %s): no deployment of %q", [owner, object.get(e, "summary", "out of office"), shown(e.start), shown(e.end), input.deployment]) if {
	some e in blocks
}

allow := count(reasons) == 0

decision := {"allow": allow, "reasons": reasons}
