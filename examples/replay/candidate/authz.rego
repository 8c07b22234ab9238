package authz

default allow := false

allow if input.user == "admin"

# the change under review: reads are capped at 50 now
allow if {
	input.action == "read"
	input.amount < 50
}
