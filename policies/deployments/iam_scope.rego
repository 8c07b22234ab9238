# "A deployment may only change resources its IAM policy allows." It reads data.deployments
# (the deployment_manager adapter's document) and judges either
#
#   a proposed change (input):
#     {"project": "p", "deployment": "web", "principal": "user:alice@example.com",
#      "groups": ["group:ops@example.com"],                              (optional)
#      "resources": [{"name": "vm-1", "type": "compute.v1.instance", "action": "create"}]}
#   -> violations (set of {deployment, resource, type, action, message}), allow, decision
#
#   or the changes deployments already have pending in data.deployments: resources whose
#   `update` is PENDING or IN_PREVIEW, by the user who started the deployment's operation
#   -> pending_violations (same shape; no input needed)
#
# The principal may change a resource when, in the deployment's IAM policy
# (data.deployments.projects[p].deployments[d].iam.bindings), a binding without a condition
# names one of its identities (the principal itself, "user:" added to a bare e-mail; its
# groups; "domain:" of its e-mail; allUsers; allAuthenticatedUsers) and that binding's role
# grants the action on the resource's type in data.deployment_roles:
#   {"roles/compute.admin": [{"types": ["compute.v1.*"], "actions": ["create", "update", "delete"]}]}
# (types are globs, "*" any type; actions: create, update, delete, acquire, abandon, or "*").
# Without data.deployment_roles: roles/owner, roles/editor and roles/deploymentmanager.editor
# grant everything, any other role nothing. Bindings with conditions are not evaluated and
# grant nothing (never laxer). A deployment without a readable IAM policy allows nothing.
package regolith.deployments.iam_scope

actions := {"create", "update", "delete", "acquire", "abandon"}

# A resource's pending update intent as the action it takes.
intent_action := {
	"CREATE_OR_ACQUIRE": "create",
	"CREATE": "create",
	"ACQUIRE": "acquire",
	"UPDATE": "update",
	"DELETE": "delete",
	"ABANDON": "abandon",
}

everything := [{"types": ["*"], "actions": ["*"]}]

default_roles := {
	"roles/owner": everything,
	"roles/editor": everything,
	"roles/deploymentmanager.editor": everything,
}

roles := data.deployment_roles

roles := default_roles if not data.deployment_roles

# ---- identities ---------------------------------------------------------------------------

# "alice@example.com" -> "user:alice@example.com"; a member string stays as it is.
# Compared in lower case, as IAM keeps e-mail addresses.
member(p) := lower(p) if contains(p, ":")

member(p) := concat(":", ["user", lower(p)]) if not contains(p, ":")

group_member(g) := lower(g) if startswith(g, "group:")

group_member(g) := concat(":", ["group", lower(g)]) if not startswith(g, "group:")

# A user's domain (domain: members name the users of a domain, not its service accounts).
domain_of(m) := {concat(":", ["domain", parts[1]])} if {
	startswith(m, "user:")
	parts := split(m, "@")
	count(parts) == 2
} else := set()

identities(principal, groups) := ({member(principal), "allUsers", "allAuthenticatedUsers"} | {group_member(g) | some g in groups}) | domain_of(member(principal))

# Roles the identities hold in an IAM policy (unconditional bindings only).
held(policy, ids) := {b.role |
	some b in object.get(policy, "bindings", [])
	not b.condition
	some m in b.members
	lower(m) in ids
}

# ---- permissions --------------------------------------------------------------------------

type_ok(grant, t) if {
	some pattern in grant.types
	glob.match(pattern, null, t)
}

action_ok(grant, a) if "*" in grant.actions

action_ok(grant, a) if a in grant.actions

grants(held_roles, t, a) if {
	some r in held_roles
	some grant in roles[r]
	type_ok(grant, t)
	action_ok(grant, a)
}

# ---- one change judged --------------------------------------------------------------------

entry(project, name) := data.deployments.projects[project].deployments[name]

# Why a change of one resource is refused (undefined when it is allowed).
refusal(project, name, principal, groups, r) := sprintf("action %q is not one of %v", [r.action, sort(actions)]) if {
	not r.action in actions
} else := sprintf("%s holds no role on deployment %s/%s that may %s a %s (roles held: %v)", [member(principal), project, name, r.action, r.type, sort(held_roles)]) if {
	held_roles := held(entry(project, name).iam, identities(principal, groups))
	not grants(held_roles, r.type, r.action)
}

# What keeps a whole deployment from being changed (undefined when nothing does).
blocked(project, name) := sprintf("deployment %s/%s is not in data.deployments", [project, name]) if {
	not entry(project, name)
} else := sprintf("deployment %s/%s has no IAM policy in data.deployments (unreadable or not read): nothing is allowed", [project, name]) if {
	not entry(project, name).iam
}

# ---- the proposed change (input) ----------------------------------------------------------

# The project: as given, or the only one holding the deployment.
project := input.project

project := p if {
	not input.project
	ps := [x | some x, pr in data.deployments.projects; pr.deployments[input.deployment]]
	count(ps) == 1
	p := ps[0]
}

groups := object.get(input, "groups", [])

violations contains {"deployment": "", "resource": "", "type": "", "action": "", "message": "the input names no deployment"} if {
	not input.deployment
}

violations contains {"deployment": object.get(input, "deployment", ""), "resource": "", "type": "", "action": "", "message": "the input names no principal"} if {
	not input.principal
}

violations contains {"deployment": input.deployment, "resource": "", "type": "", "action": "", "message": sprintf("deployment %q is in none or several projects of data.deployments: name the project", [input.deployment])} if {
	input.deployment
	not project
}

violations contains {"deployment": input.deployment, "resource": "", "type": "", "action": "", "message": msg} if {
	input.principal
	msg := blocked(project, input.deployment)
}

violations contains {"deployment": input.deployment, "resource": r.name, "type": r.type, "action": r.action, "message": sprintf("resource %q: %s", [r.name, msg])} if {
	input.principal
	not blocked(project, input.deployment)
	some r in input.resources
	msg := refusal(project, input.deployment, input.principal, groups, r)
}

default allow := false

allow if {
	input.deployment
	input.principal
	count(violations) == 0
}

decision := {"allow": allow, "violations": violations}

# ---- changes pending in data.deployments --------------------------------------------------

pending_violations contains {"deployment": concat("/", [p, name]), "resource": rname, "type": r.type, "action": action, "message": sprintf("pending change of resource %q by %s: %s", [rname, user, msg])} if {
	some p, pr in data.deployments.projects
	some name, d in pr.deployments
	some rname, r in d.resources
	r.update.state in {"PENDING", "IN_PREVIEW"}
	action := object.get(intent_action, r.update.intent, lower(r.update.intent))
	user := object.get(d.deployment, ["operation", "user"], "an unknown user")
	msg := pending_refusal(p, name, user, {"name": rname, "type": r.type, "action": action})
}

pending_refusal(p, name, _, _) := blocked(p, name)

pending_refusal(p, name, user, r) := refusal(p, name, user, [], r) if not blocked(p, name)
