package regolith.deployments.iam_scope_test

import data.regolith.deployments.iam_scope

roles := {
	"roles/owner": [{"types": ["*"], "actions": ["*"]}],
	"roles/compute.instanceAdmin": [{"types": ["compute.v1.instance", "compute.v1.disk"], "actions": ["create", "update", "delete"]}],
	"roles/network.viewer": [{"types": ["compute.v1.*"], "actions": []}],
}

dm := {"projects": {"acme-prod": {"deployments": {
	"web": {
		"deployment": {"name": "web", "operation": {"user": "bob@example.com"}},
		"resources": {
			"vm-1": {"name": "vm-1", "type": "compute.v1.instance"},
			"net-1": {"name": "net-1", "type": "compute.v1.network", "update": {"intent": "CREATE_OR_ACQUIRE", "state": "IN_PREVIEW"}},
			"disk-1": {"name": "disk-1", "type": "compute.v1.disk", "update": {"intent": "UPDATE", "state": "PENDING"}},
			"old-1": {"name": "old-1", "type": "compute.v1.network", "update": {"intent": "DELETE", "state": "COMPLETED"}},
		},
		"iam": {"version": 1, "etag": "BwX", "bindings": [
			{"role": "roles/owner", "members": ["user:owner@example.com"]},
			{"role": "roles/compute.instanceAdmin", "members": ["user:bob@example.com", "group:ops@example.com"]},
			{"role": "roles/network.viewer", "members": ["domain:example.com"]},
			{"role": "roles/owner", "members": ["user:carol@example.com"], "condition": {"title": "expires", "expression": "request.time < timestamp('2020-01-01T00:00:00Z')"}},
		]},
	},
	"locked": {"deployment": {"name": "locked"}, "resources": {}},
}}}}

change(principal, resources) := {"project": "acme-prod", "deployment": "web", "principal": principal, "resources": resources}

vm_create := [{"name": "vm-2", "type": "compute.v1.instance", "action": "create"}]

net_create := [{"name": "net-2", "type": "compute.v1.network", "action": "create"}]

test_a_role_holder_may_change_the_types_of_its_role if {
	d := iam_scope.decision with input as change("user:bob@example.com", vm_create) with data.deployments as dm with data.deployment_roles as roles
	d.allow
	count(d.violations) == 0
}

test_a_bare_email_is_a_user if {
	iam_scope.allow with input as change("bob@example.com", vm_create) with data.deployments as dm with data.deployment_roles as roles
}

test_not_other_types if {
	vs := iam_scope.violations with input as change("bob@example.com", net_create) with data.deployments as dm with data.deployment_roles as roles
	count(vs) == 1
	some v in vs
	v.resource == "net-2"
	contains(v.message, "user:bob@example.com holds no role on deployment acme-prod/web that may create a compute.v1.network")
	not iam_scope.allow with input as change("bob@example.com", net_create) with data.deployments as dm with data.deployment_roles as roles
}

test_a_principal_without_a_binding_may_not if {
	vs := iam_scope.violations with input as change("user:mallory@evil.example", vm_create) with data.deployments as dm with data.deployment_roles as roles
	count(vs) == 1
	some v in vs
	contains(v.message, "roles held: []")
}

test_emails_compare_in_lower_case if {
	iam_scope.allow with input as change("Bob@Example.com", vm_create) with data.deployments as dm with data.deployment_roles as roles
}

test_a_service_account_is_no_domain_user if {
	not iam_scope.allow with input as change("serviceAccount:ci@example.com", [{"name": "n", "type": "compute.v1.network", "action": "create"}]) with data.deployments as dm with data.deployment_roles as {"roles/network.viewer": [{"types": ["*"], "actions": ["*"]}]}
	iam_scope.allow with input as change("user:ci@example.com", [{"name": "n", "type": "compute.v1.network", "action": "create"}]) with data.deployments as dm with data.deployment_roles as {"roles/network.viewer": [{"types": ["*"], "actions": ["*"]}]}
}

test_group_membership_counts if {
	iam_scope.allow with input as object.union(change("user:dave@other.example", vm_create), {"groups": ["ops@example.com"]}) with data.deployments as dm with data.deployment_roles as roles
}

test_domain_binding_grants_its_role_only if {
	vs := iam_scope.violations with input as change("user:erin@example.com", net_create) with data.deployments as dm with data.deployment_roles as roles
	some v in vs
	contains(v.message, "roles held: [\"roles/network.viewer\"]")
}

test_owner_may_do_anything if {
	iam_scope.allow with input as change("owner@example.com", array.concat(vm_create, [{"name": "net-2", "type": "compute.v1.network", "action": "delete"}])) with data.deployments as dm with data.deployment_roles as roles
}

test_conditional_bindings_grant_nothing if {
	not iam_scope.allow with input as change("carol@example.com", vm_create) with data.deployments as dm with data.deployment_roles as roles
}

test_default_roles_without_settings if {
	iam_scope.allow with input as change("owner@example.com", net_create) with data.deployments as dm
	not iam_scope.allow with input as change("bob@example.com", vm_create) with data.deployments as dm
}

test_unknown_action if {
	vs := iam_scope.violations with input as change("owner@example.com", [{"name": "x", "type": "compute.v1.instance", "action": "explode"}]) with data.deployments as dm with data.deployment_roles as roles
	some v in vs
	startswith(v.message, "resource \"x\": action \"explode\" is not one of")
}

test_no_iam_policy_allows_nothing if {
	vs := iam_scope.violations with input as {"deployment": "locked", "principal": "owner@example.com", "resources": vm_create} with data.deployments as dm with data.deployment_roles as roles
	some v in vs
	contains(v.message, "has no IAM policy")
}

test_unknown_deployment if {
	vs := iam_scope.violations with input as {"project": "acme-prod", "deployment": "nope", "principal": "owner@example.com", "resources": vm_create} with data.deployments as dm
	some v in vs
	v.message == "deployment acme-prod/nope is not in data.deployments"
}

test_missing_principal if {
	not iam_scope.allow with input as {"project": "acme-prod", "deployment": "web", "resources": []} with data.deployments as dm
	vs := iam_scope.violations with input as {"project": "acme-prod", "deployment": "web", "resources": []} with data.deployments as dm
	some v in vs
	v.message == "the input names no principal"
}

test_project_found_when_not_named if {
	iam_scope.allow with input as {"deployment": "web", "principal": "bob@example.com", "resources": vm_create} with data.deployments as dm with data.deployment_roles as roles
}

test_pending_changes_by_the_operation_user if {
	vs := iam_scope.pending_violations with data.deployments as dm with data.deployment_roles as roles

	# bob may update the disk, not create the network; completed updates are not pending
	count(vs) == 1
	some v in vs
	v.resource == "net-1"
	v.action == "create"
	v.deployment == "acme-prod/web"
}
