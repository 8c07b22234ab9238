# Readiness of a hybrid API-management runtime for the upgrade from 1.2 to 1.3.6, the
# policy `regolith upgrade-check` evaluates. Every requirement and checkable step of the
# upgrade has at least one rule; each violation names the step it belongs to.
#
# Input:
#   overrides     the overrides file, parsed (YAML)
#   cluster       facts the operator collects (see the README, "Runtime upgrade 1.2 → 1.3.6"):
#                   platform              managed | enterprise | third-party
#                   platform_version      e.g. "1.15.12"
#                   attached_to_enterprise  true when a third-party cluster is attached (third-party only)
#                   mesh_version, cert_manager_version, orchestrator_version
#                   mesh_deployments      [{name, replicas}]
#                   autoscalers           [{name, min_replicas}]
#                   environment_groups    [name] (optional: the groups designed in step 4)
#                   datastore_nodes       [address] (optional: existing datastore nodes)
#   organization  the management API's organization: {name, properties: {property: [{name, value}]}}
#   phase         "before" (default) or "after" the upgrade (also read from cluster.phase)
#
# Output: violations, a set of {step, key, message}; ready when there is none.
package regolith.runtime_upgrade

# ---------------------------------------------------------------------------------------
# Helpers

ov := input.overrides if is_object(input.overrides)

else := {}

cluster := input.cluster if is_object(input.cluster)

else := {}

organization := input.organization if is_object(input.organization)

else := {}

violation(step, key, message) := {"step": step, "key": key, "message": message}

has_key(o, k) if {
	is_object(o)
	_ = o[k]
}

nonempty_string(s) if {
	is_string(s)
	trim_space(s) != ""
}

# A stanza of the overrides file (an object), or {} when absent or not an object.
stanza(name) := ov[name] if is_object(ov[name])

else := {}

as_array(x) := x if is_array(x)

else := []

# Dotted versions: "v1.15.12-gke.4" -> [1, 15, 12]. Numbers from YAML (1.15) are read as
# their decimal text; quote versions in the facts file (1.20 would otherwise be 1.2).
version_text(v) := trim_prefix(trim_space(sprintf("%v", [v])), "v")

valid_version(v) if regex.match(`^[0-9]+(\.[0-9]+)*`, version_text(v))

version_parts(v) := [to_number(p) | some p in split(regex.find_n(`^[0-9]+(\.[0-9]+)*`, version_text(v), 1)[0], ".")]

part(ps, i) := x if {
	x := ps[i]
} else := 0

# -1, 0 or 1 as a is older than, the same as or newer than b (missing parts count as 0).
version_compare(a, b) := r if {
	pa := version_parts(a)
	pb := version_parts(b)
	n := max([count(pa), count(pb)])
	diffs := [d |
		some i in numbers.range(0, n - 1)
		part(pa, i) != part(pb, i)
		d := sign(part(pa, i) - part(pb, i))
	]
	r := first_or_zero(diffs)
}

first_or_zero(xs) := xs[0] if count(xs) > 0

else := 0

sign(x) := 1 if x > 0

else := -1

# The version is major.minor or major.minor.x for the [major, minor] given.
same_minor(v, mm) if {
	ps := version_parts(v)
	count(ps) >= 2
	ps[0] == mm[0]
	ps[1] == mm[1]
}

# ---------------------------------------------------------------------------------------
# Requirements (container platform)

platform := cluster.platform

platform_kinds := {"managed", "enterprise", "third-party"}

required_platform := {"managed": [1, 15], "enterprise": [1, 5], "third-party": [1, 16]}

platform_wording := {"managed": "1.15.x", "enterprise": "1.5", "third-party": "1.16.x"}

violations contains violation("Requirements", "cluster.platform", sprintf("unknown container platform %q: one of managed, enterprise, third-party", [platform])) if {
	has_key(cluster, "platform")
	not platform in platform_kinds
}

violations contains violation("Requirements", "cluster.platform_version", sprintf("the %s container platform must be %s, not %v", [platform, platform_wording[platform], cluster.platform_version])) if {
	valid_version(cluster.platform_version)
	not same_minor(cluster.platform_version, required_platform[platform])
}

violations contains violation("Requirements", "cluster.attached_to_enterprise", "a third-party managed platform needs its clusters attached to the enterprise platform") if {
	platform == "third-party"
	not cluster.attached_to_enterprise == true
}

# ---------------------------------------------------------------------------------------
# Facts the checks need: which step needs each one.

required_facts := {
	"platform": "Requirements",
	"platform_version": "Requirements",
	"mesh_version": "Mesh and certificate manager 2",
	"cert_manager_version": "Mesh and certificate manager 3",
	"orchestrator_version": "Runtime installation 4",
	"mesh_deployments": "Mesh and certificate manager 1",
	"autoscalers": "Mesh and certificate manager 1",
}

violations contains violation(step, sprintf("cluster.%s", [fact]), sprintf("the cluster facts do not give %s", [fact])) if {
	some fact, step in required_facts
	not has_key(cluster, fact)
}

version_facts := {
	"platform_version": "Requirements",
	"mesh_version": "Mesh and certificate manager 2",
	"cert_manager_version": "Mesh and certificate manager 3",
	"orchestrator_version": "Runtime installation 4",
}

violations contains violation(step, sprintf("cluster.%s", [fact]), sprintf("%v is not a version", [cluster[fact]])) if {
	some fact, step in version_facts
	has_key(cluster, fact)
	not valid_version(cluster[fact])
}

# ---------------------------------------------------------------------------------------
# Mesh and certificate manager

violations contains violation("Mesh and certificate manager 1", sprintf("cluster.mesh_deployments[%s].replicas", [d.name]), sprintf("mesh deployment %s has replicas %v: at least 2 are needed", [d.name, object.get(d, "replicas", 0)])) if {
	some d in as_array(cluster.mesh_deployments)
	not at_least_2(object.get(d, "replicas", 0))
}

violations contains violation("Mesh and certificate manager 1", sprintf("cluster.autoscalers[%s].min_replicas", [a.name]), sprintf("mesh autoscaler %s has minReplicas %v: at least 2 are needed", [a.name, object.get(a, "min_replicas", 0)])) if {
	some a in as_array(cluster.autoscalers)
	not at_least_2(object.get(a, "min_replicas", 0))
}

at_least_2(n) if {
	is_number(n)
	n >= 2
}

violations contains violation("Mesh and certificate manager 2", "cluster.mesh_version", sprintf("service mesh %v is installed: install 1.5.7 or newer", [cluster.mesh_version])) if {
	valid_version(cluster.mesh_version)
	version_compare(cluster.mesh_version, "1.5.7") < 0
}

violations contains violation("Mesh and certificate manager 3", "cluster.cert_manager_version", sprintf("certificate manager %v is installed: delete cert-manager, cert-manager-cainjector and cert-manager-webhook and install 0.14.2", [cluster.cert_manager_version])) if {
	valid_version(cluster.cert_manager_version)
	version_compare(cluster.cert_manager_version, "0.14.2") != 0
}

# ---------------------------------------------------------------------------------------
# Preparation 2: the connect API, read through the management API. The feature is enabled
# when the organization has features.mart.connect.enabled true; features.hybrid.enabled is
# sent with it in the update request (the plan's PUT), not required in the read.

required_properties := ["features.mart.connect.enabled"]

property_value(name) := p.value if {
	some p in as_array(object.get(organization, ["properties", "property"], []))
	p.name == name
}

violations contains violation("Preparation 2", sprintf("organization.properties.%s", [name]), msg) if {
	some name in required_properties
	not property_value(name)
	msg := sprintf("organization property %s is not set: enable it with the management API PUT (value true)", [name])
}

violations contains violation("Preparation 2", sprintf("organization.properties.%s", [name]), msg) if {
	some name in required_properties
	value := property_value(name)
	lower(sprintf("%v", [value])) != "true"
	msg := sprintf("organization property %s is %v: enable it with the management API PUT (value true)", [name, value])
}

violations contains violation("Preparation 2", "org", sprintf("the organization properties read are those of %q, the overrides file names %q", [organization.name, ov.org])) if {
	nonempty_string(organization.name)
	nonempty_string(ov.org)
	organization.name != ov.org
}

# ---------------------------------------------------------------------------------------
# Preparation 4 (at least one environment group) and 5 (one virtualhosts entry per group,
# named after it)

vhosts := as_array(ov.virtualhosts)

violations contains violation("Preparation 4", "virtualhosts", "no virtualhosts entry: 1.3 routes by environment groups, at least one is required") if {
	count(vhosts) == 0
}

violations contains violation("Preparation 5", sprintf("virtualhosts[%d].name", [i]), sprintf("virtualhosts entry %d has no name: name it after its environment group", [i])) if {
	some i, vh in vhosts
	not nonempty_string(object.get(vh, "name", null))
}

violations contains violation("Preparation 5", "virtualhosts", sprintf("%d virtualhosts entries are named %q: one entry per environment group", [n, name])) if {
	some name in {vh.name | some vh in vhosts}
	n := count([1 | some vh in vhosts; vh.name == name])
	n > 1
}

groups := {g | some g in as_array(cluster.environment_groups)}

violations contains violation("Preparation 5", "virtualhosts", sprintf("environment group %q has no virtualhosts entry", [g])) if {
	some g in groups
	not g in {vh.name | some vh in vhosts}
}

violations contains violation("Preparation 5", sprintf("virtualhosts[%d].name", [i]), sprintf("virtualhosts entry %q names no environment group (groups: %v)", [vh.name, sort(groups)])) if {
	count(groups) > 0
	some i, vh in vhosts
	nonempty_string(object.get(vh, "name", null))
	not vh.name in groups
}

# ---------------------------------------------------------------------------------------
# Preparation 5: the overrides file

renames := {
	"gcpRegion": "gcp.region",
	"gcpProjectID": "gcp.projectID",
	"gcpProjectIDRuntime": "gcp.gcpProjectIDRuntime",
	"k8sClusterName": "k8sCluster.name",
	"k8sClusterRegion": "k8sCluster.region",
}

violations contains violation("Preparation 5", old, sprintf("%s is a 1.2 key: rename it to %s", [old, new])) if {
	some old, new in renames
	has_key(ov, old)
}

# Required 1.3 keys (gcp.gcpProjectIDRuntime is optional), unless the 1.2 key is still there
# (the rule above reports that).
required_keys := {"gcpRegion": ["gcp", "region"], "gcpProjectID": ["gcp", "projectID"], "k8sClusterName": ["k8sCluster", "name"], "k8sClusterRegion": ["k8sCluster", "region"]}

violations contains violation("Preparation 5", key, sprintf("%s is missing", [key])) if {
	some old, path in required_keys
	not has_key(ov, old)
	not nonempty_string(object.get(ov, path, null))
	key := concat(".", path)
}

violations contains violation("Preparation 5", "instanceID", "instanceID is missing: add a unique installation identifier of at most 63 characters") if {
	not nonempty_string(object.get(ov, "instanceID", null))
}

violations contains violation("Limits", "instanceID", sprintf("instanceID has %d characters: at most 63", [count(ov.instanceID)])) if {
	is_string(ov.instanceID)
	count(ov.instanceID) > 63
}

violations contains violation("Preparation 5", "watcher.serviceAccountPath", "watcher.serviceAccountPath is missing: the key file of the watcher's service account (runtime-agent role, step Preparation 3)") if {
	not nonempty_string(object.get(stanza("watcher"), "serviceAccountPath", null))
}

violations contains violation("Preparation 5", "metrics.serviceAccountPath", "metrics.serviceAccountPath is missing: the key file of the metrics service account") if {
	not nonempty_string(object.get(stanza("metrics"), "serviceAccountPath", null))
}

# The connect agent's account: a top-level connectAgent stanza (where the runtime reads it);
# one written inside mart is accepted too, the upgrade steps' wording allowing both readings.
connect_agent_path := p if {
	p := object.get(stanza("connectAgent"), "serviceAccountPath", null)
	nonempty_string(p)
} else := p if {
	p := object.get(stanza("mart"), ["connectAgent", "serviceAccountPath"], null)
	nonempty_string(p)
}

violations contains violation("Preparation 5", "connectAgent.serviceAccountPath", "connectAgent.serviceAccountPath is missing: the key file of an account holding the connect-agent role (usually the MART account)") if {
	not connect_agent_path
}

violations contains violation("Preparation 5", sprintf("virtualhosts[%d].%s", [i, k]), sprintf("virtualhosts entry %v: delete %s (1.3 routes by environment groups)", [object.get(vh, "name", i), k])) if {
	some i, vh in vhosts
	some k in ["hostAliases", "routingRules"]
	has_key(vh, k)
}

violations contains violation("Preparation 5", sprintf("virtualhosts[%d].%s", [i, k]), sprintf("virtualhosts entry %v: %s is missing (keep the certificate paths)", [object.get(vh, "name", i), k])) if {
	some i, vh in vhosts
	some k in ["sslCertPath", "sslKeyPath"]
	not nonempty_string(object.get(vh, k, null))
}

violations contains violation("Preparation 5", sprintf("mart.%s", [k]), sprintf("mart.%s: remove it (1.3 serves MART through the connect agent)", [k])) if {
	some k in ["hostAlias", "sslCertPath", "sslKeyPath"]
	has_key(stanza("mart"), k)
}

# ---------------------------------------------------------------------------------------
# Phase: "before" the upgrade (the default: the 1.3.6 overrides ready to apply) or "after"
# it (Runtime installation 6 done), from input.phase (--phase) or the cluster facts.

phase := input.phase if is_string(input.phase)

else := cluster.phase if is_string(cluster.phase)

else := "before"

violations contains violation("Requirements", "phase", sprintf("unknown phase %q: before or after (the upgrade)", [phase])) if {
	not phase in {"before", "after"}
}

# ---------------------------------------------------------------------------------------
# Runtime installation 3: the new datastore joins the old ring through externalSeedHost.
# The datastore stanza is `cassandra` (`datastore` is accepted too). After the upgrade,
# Runtime installation 6 has removed it.

seed_host := h if {
	h := object.get(stanza("cassandra"), "externalSeedHost", null)
	nonempty_string(h)
} else := h if {
	h := object.get(stanza("datastore"), "externalSeedHost", null)
	nonempty_string(h)
}

violations contains violation("Runtime installation 3", "cassandra.externalSeedHost", "cassandra.externalSeedHost is missing: the address of one existing datastore node (one-time step for 1.2 to 1.3.x)") if {
	phase == "before"
	not seed_host
}

violations contains violation("Runtime installation 6", "cassandra.externalSeedHost", sprintf("externalSeedHost %q is still set: once old and new datastore nodes share the ring, remove it and re-apply the datastore", [seed_host])) if {
	phase == "after"
	seed_host
}

violations contains violation("Runtime installation 3", "cassandra.externalSeedHost", sprintf("externalSeedHost %q is not an existing datastore node (%v)", [seed_host, sort(nodes)])) if {
	phase == "before"
	nodes := {n | some n in as_array(cluster.datastore_nodes)}
	count(nodes) > 0
	not seed_host in nodes
}

# ---------------------------------------------------------------------------------------

ready := count(violations) == 0

# The dry-run flag of `<ctl> apply` for the orchestrator CLI's version.
dry_run_flag := "--dry-run=true" if {
	version_compare(cluster.orchestrator_version, "1.18") < 0
} else := "--dry-run=client" if {
	valid_version(cluster.orchestrator_version)
}
