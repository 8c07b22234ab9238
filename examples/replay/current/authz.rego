package authz

default allow := false

allow if input.user == "admin"

allow if {
	input.action == "read"
	input.amount < 100
}
