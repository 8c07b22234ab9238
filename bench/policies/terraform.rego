# Terraform plan review (as in OPA's Terraform tutorial): counts the changes a plan makes
# by action and refuses plans that delete protected resource types or change too much.
# The input is `terraform show -json` output; only resource_changes is read.
package terraform

protected := {"aws_db_instance", "aws_s3_bucket", "aws_kms_key"}

# changes[action]: how many resources the plan would create, update, delete.
changes[action] := n if {
	some action in ["create", "update", "delete"]
	n := count([1 | some rc in input.resource_changes; action in rc.change.actions])
}

deny contains msg if {
	some rc in input.resource_changes
	"delete" in rc.change.actions
	rc.type in protected
	msg := sprintf("%s would be deleted", [rc.address])
}

deny contains msg if {
	total := changes.create + changes.update + changes.delete
	total > 20
	msg := sprintf("the plan changes %d resources (at most 20)", [total])
}

summary := {"changes": changes, "deny": deny}
