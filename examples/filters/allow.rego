package filters

default allow := false

allow if input.row.owner == input.user

allow if {
	input.row.public
	not input.row.archived
}
