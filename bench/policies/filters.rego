# A realistic data-filtering policy: which rows of three tables a user may see, by tenancy,
# role and ownership. Partial evaluation turns it into conditions on input.<table>.
package filters

import rego.v1

default documents := false

documents if {
	input.documents.tenant_id == data.users[input.user].tenant
	"admin" in data.users[input.user].roles
}

documents if {
	input.documents.tenant_id == data.users[input.user].tenant
	input.documents.owner == input.user
}

documents if {
	input.documents.tenant_id == data.users[input.user].tenant
	input.documents.public == true
	not input.documents.archived
}

default projects := false

projects if {
	input.projects.tenant_id == data.users[input.user].tenant
	some team in data.users[input.user].teams
	input.projects.team == team
}

projects if {
	"admin" in data.users[input.user].roles
	input.projects.tenant_id == data.users[input.user].tenant
}

default invoices := false

invoices if {
	"billing" in data.users[input.user].roles
	input.invoices.tenant_id == data.users[input.user].tenant
	input.invoices.amount <= data.users[input.user].limit
}
