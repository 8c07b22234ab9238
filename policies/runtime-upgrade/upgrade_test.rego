package regolith.runtime_upgrade_test

import data.regolith.runtime_upgrade

# A 1.3.6 overrides file and cluster that satisfy every rule.
good_overrides := {
	"gcp": {"region": "us-central1", "projectID": "acme-prod"},
	"k8sCluster": {"name": "hybrid-1", "region": "us-central1"},
	"org": "acme",
	"instanceID": "acme-hybrid-1",
	"virtualhosts": [
		{"name": "prod-group", "sslCertPath": "certs/prod.pem", "sslKeyPath": "certs/prod.key"},
		{"name": "test-group", "sslCertPath": "certs/test.pem", "sslKeyPath": "certs/test.key"},
	],
	"envs": [{"name": "prod"}, {"name": "test"}],
	"mart": {"serviceAccountPath": "sa/mart.json"},
	"connectAgent": {"serviceAccountPath": "sa/mart.json"},
	"metrics": {"serviceAccountPath": "sa/metrics.json"},
	"watcher": {"serviceAccountPath": "sa/watcher.json"},
	"cassandra": {"hostNetwork": false, "externalSeedHost": "10.0.0.11"},
}

good_cluster := {
	"platform": "managed",
	"platform_version": "1.15.12-gke.2",
	"mesh_version": "1.5.7",
	"cert_manager_version": "v0.14.2",
	"orchestrator_version": "1.18.3",
	"mesh_deployments": [{"name": "istiod", "replicas": 2}, {"name": "istio-ingressgateway", "replicas": 3}],
	"autoscalers": [{"name": "istio-ingressgateway", "min_replicas": 2}],
	"environment_groups": ["prod-group", "test-group"],
	"datastore_nodes": ["10.0.0.11", "10.0.0.12"],
}

good_org := {"name": "acme", "properties": {"property": [
	{"name": "features.hybrid.enabled", "value": "true"},
	{"name": "features.mart.connect.enabled", "value": "true"},
]}}

good := {"overrides": good_overrides, "cluster": good_cluster, "organization": good_org}

# The {step, key} pairs found for the good input with the changes given.
found(overrides, cluster, org) := {[v.step, v.key] | some v in vs} if {
	vs := runtime_upgrade.violations with input as {"overrides": overrides, "cluster": cluster, "organization": org}
}

with_overrides(patch) := object.union(good_overrides, patch)

with_cluster(patch) := object.union(good_cluster, patch)

only(overrides, cluster, org) := found(overrides, cluster, org)

test_good_input_is_ready if {
	runtime_upgrade.ready with input as good
	count(runtime_upgrade.violations) == 0 with input as good
}

test_violation_shape if {
	vs := runtime_upgrade.violations with input as {"overrides": object.remove(good_overrides, ["instanceID"]), "cluster": good_cluster, "organization": good_org}
	vs == {{"step": "Preparation 5", "key": "instanceID", "message": "instanceID is missing: add a unique installation identifier of at most 63 characters"}}
	not runtime_upgrade.ready with input as {"overrides": object.remove(good_overrides, ["instanceID"]), "cluster": good_cluster, "organization": good_org}
}

# ---- Requirements

test_platform_version if {
	only(good_overrides, with_cluster({"platform_version": "1.14.10"}), good_org) == {["Requirements", "cluster.platform_version"]}
	only(good_overrides, with_cluster({"platform": "enterprise", "platform_version": "1.5.0"}), good_org) == set()
	only(good_overrides, with_cluster({"platform": "enterprise", "platform_version": "1.4"}), good_org) == {["Requirements", "cluster.platform_version"]}
	only(good_overrides, with_cluster({"platform": "third-party", "platform_version": "1.16.8", "attached_to_enterprise": true}), good_org) == set()
	only(good_overrides, with_cluster({"platform": "third-party", "platform_version": "1.17.1", "attached_to_enterprise": true}), good_org) == {["Requirements", "cluster.platform_version"]}
}

test_platform_kind if {
	only(good_overrides, with_cluster({"platform": "bare-metal"}), good_org) == {["Requirements", "cluster.platform"]}
}

test_third_party_attached if {
	only(good_overrides, with_cluster({"platform": "third-party", "platform_version": "1.16.8"}), good_org) == {["Requirements", "cluster.attached_to_enterprise"]}
	only(good_overrides, with_cluster({"platform": "third-party", "platform_version": "1.16.8", "attached_to_enterprise": false}), good_org) == {["Requirements", "cluster.attached_to_enterprise"]}
}

test_missing_facts if {
	only(good_overrides, {"environment_groups": ["prod-group", "test-group"]}, good_org) == {
		["Requirements", "cluster.platform"],
		["Requirements", "cluster.platform_version"],
		["Mesh and certificate manager 2", "cluster.mesh_version"],
		["Mesh and certificate manager 3", "cluster.cert_manager_version"],
		["Runtime installation 4", "cluster.orchestrator_version"],
		["Mesh and certificate manager 1", "cluster.mesh_deployments"],
		["Mesh and certificate manager 1", "cluster.autoscalers"],
	}
}

test_invalid_version_fact if {
	only(good_overrides, with_cluster({"orchestrator_version": "latest"}), good_org) == {["Runtime installation 4", "cluster.orchestrator_version"]}
}

# ---- Mesh and certificate manager

test_mesh_deployment_replicas if {
	c := with_cluster({"mesh_deployments": [{"name": "istiod", "replicas": 1}, {"name": "istio-ingressgateway", "replicas": 2}]})
	only(good_overrides, c, good_org) == {["Mesh and certificate manager 1", "cluster.mesh_deployments[istiod].replicas"]}
}

test_autoscaler_min_replicas if {
	c := with_cluster({"autoscalers": [{"name": "istio-ingressgateway", "min_replicas": 1}, {"name": "istiod"}]})
	only(good_overrides, c, good_org) == {
		["Mesh and certificate manager 1", "cluster.autoscalers[istio-ingressgateway].min_replicas"],
		["Mesh and certificate manager 1", "cluster.autoscalers[istiod].min_replicas"],
	}
}

test_mesh_version if {
	only(good_overrides, with_cluster({"mesh_version": "1.4.6"}), good_org) == {["Mesh and certificate manager 2", "cluster.mesh_version"]}
	only(good_overrides, with_cluster({"mesh_version": "1.5.6"}), good_org) == {["Mesh and certificate manager 2", "cluster.mesh_version"]}
	only(good_overrides, with_cluster({"mesh_version": "1.6.0"}), good_org) == set()
	only(good_overrides, with_cluster({"mesh_version": "1.5.10"}), good_org) == set()
}

test_cert_manager_version if {
	only(good_overrides, with_cluster({"cert_manager_version": "0.13.0"}), good_org) == {["Mesh and certificate manager 3", "cluster.cert_manager_version"]}
	only(good_overrides, with_cluster({"cert_manager_version": "1.0.0"}), good_org) == {["Mesh and certificate manager 3", "cluster.cert_manager_version"]}
}

# ---- Preparation 2: organization properties

test_org_property_missing if {
	org := {"name": "acme", "properties": {"property": [{"name": "features.hybrid.enabled", "value": "true"}]}}
	only(good_overrides, good_cluster, org) == {["Preparation 2", "organization.properties.features.mart.connect.enabled"]}
	only(good_overrides, good_cluster, {}) == {["Preparation 2", "organization.properties.features.mart.connect.enabled"]}
}

# The connect feature is enabled by features.mart.connect.enabled alone; hybrid.enabled is
# what the update request sends, not a condition on the organization read.
test_org_with_only_the_connect_property_is_ready if {
	org := {"name": "acme", "properties": {"property": [{"name": "features.mart.connect.enabled", "value": "true"}]}}
	only(good_overrides, good_cluster, org) == set()
	hybrid_off := {"name": "acme", "properties": {"property": [
		{"name": "features.hybrid.enabled", "value": "false"},
		{"name": "features.mart.connect.enabled", "value": "true"},
	]}}
	only(good_overrides, good_cluster, hybrid_off) == set()
}

test_org_property_false if {
	org := {"name": "acme", "properties": {"property": [
		{"name": "features.hybrid.enabled", "value": "true"},
		{"name": "features.mart.connect.enabled", "value": "false"},
	]}}
	only(good_overrides, good_cluster, org) == {["Preparation 2", "organization.properties.features.mart.connect.enabled"]}
}

test_org_name_matches_overrides if {
	only(good_overrides, good_cluster, object.union(good_org, {"name": "other"})) == {["Preparation 2", "org"]}
}

# ---- Preparation 4 and 5: environment groups and virtual hosts

test_at_least_one_virtualhost if {
	found := only(with_overrides({"virtualhosts": []}), object.remove(good_cluster, ["environment_groups"]), good_org)
	found == {["Preparation 4", "virtualhosts"]}
}

test_virtualhost_name if {
	o := with_overrides({"virtualhosts": [{"sslCertPath": "a", "sslKeyPath": "b"}]})
	only(o, object.remove(good_cluster, ["environment_groups"]), good_org) == {["Preparation 5", "virtualhosts[0].name"]}
}

test_one_virtualhost_per_group if {
	vh := {"name": "prod-group", "sslCertPath": "a", "sslKeyPath": "b"}
	o := with_overrides({"virtualhosts": [vh, vh]})
	only(o, object.remove(good_cluster, ["environment_groups"]), good_org) == {["Preparation 5", "virtualhosts"]}
}

test_every_group_has_a_virtualhost if {
	o := with_overrides({"virtualhosts": [{"name": "prod-group", "sslCertPath": "a", "sslKeyPath": "b"}]})
	only(o, good_cluster, good_org) == {["Preparation 5", "virtualhosts"]}
}

test_virtualhost_names_a_group if {
	o := with_overrides({"virtualhosts": [
		{"name": "prod-group", "sslCertPath": "a", "sslKeyPath": "b"},
		{"name": "test-group", "sslCertPath": "a", "sslKeyPath": "b"},
		{"name": "default", "sslCertPath": "a", "sslKeyPath": "b"},
	]})
	only(o, good_cluster, good_org) == {["Preparation 5", "virtualhosts[2].name"]}
}

test_virtualhost_without_host_aliases_and_routing_rules if {
	o := with_overrides({"virtualhosts": [
		{"name": "prod-group", "hostAliases": ["*.acme.example"], "sslCertPath": "a", "sslKeyPath": "b"},
		{"name": "test-group", "routingRules": [{"paths": ["/"], "env": "test"}], "sslCertPath": "a", "sslKeyPath": "b"},
	]})
	only(o, good_cluster, good_org) == {["Preparation 5", "virtualhosts[0].hostAliases"], ["Preparation 5", "virtualhosts[1].routingRules"]}
}

test_virtualhost_certificate_paths if {
	o := with_overrides({"virtualhosts": [
		{"name": "prod-group", "sslKeyPath": "b"},
		{"name": "test-group", "sslCertPath": "a", "sslKeyPath": ""},
	]})
	only(o, good_cluster, good_org) == {["Preparation 5", "virtualhosts[0].sslCertPath"], ["Preparation 5", "virtualhosts[1].sslKeyPath"]}
}

# ---- Preparation 5: keys

test_renamed_keys if {
	o := object.union(object.remove(good_overrides, ["gcp", "k8sCluster"]), {
		"gcpRegion": "us-central1", "gcpProjectID": "acme-prod", "gcpProjectIDRuntime": "acme-logs",
		"k8sClusterName": "hybrid-1", "k8sClusterRegion": "us-central1",
	})
	only(o, good_cluster, good_org) == {
		["Preparation 5", "gcpRegion"], ["Preparation 5", "gcpProjectID"], ["Preparation 5", "gcpProjectIDRuntime"],
		["Preparation 5", "k8sClusterName"], ["Preparation 5", "k8sClusterRegion"],
	}
}

test_new_keys_required if {
	o := object.union(object.remove(good_overrides, ["gcp", "k8sCluster"]), {"k8sCluster": {"name": "hybrid-1"}})
	only(o, good_cluster, good_org) == {["Preparation 5", "gcp.region"], ["Preparation 5", "gcp.projectID"], ["Preparation 5", "k8sCluster.region"]}
	only(with_overrides({"gcp": {"region": "us-central1", "projectID": "p", "gcpProjectIDRuntime": "logs"}}), good_cluster, good_org) == set()
}

test_instance_id_present if {
	only(object.remove(good_overrides, ["instanceID"]), good_cluster, good_org) == {["Preparation 5", "instanceID"]}
	only(with_overrides({"instanceID": " "}), good_cluster, good_org) == {["Preparation 5", "instanceID"]}
}

test_instance_id_at_most_63 if {
	only(with_overrides({"instanceID": concat("", ["a" | some _ in numbers.range(1, 63)])}), good_cluster, good_org) == set()
	only(with_overrides({"instanceID": concat("", ["a" | some _ in numbers.range(1, 64)])}), good_cluster, good_org) == {["Limits", "instanceID"]}
}

test_watcher_service_account if {
	only(object.remove(good_overrides, ["watcher"]), good_cluster, good_org) == {["Preparation 5", "watcher.serviceAccountPath"]}
}

test_metrics_service_account if {
	only(object.union(object.remove(good_overrides, ["metrics"]), {"metrics": {"enabled": true}}), good_cluster, good_org) == {["Preparation 5", "metrics.serviceAccountPath"]}
}

test_connect_agent_service_account if {
	only(object.remove(good_overrides, ["connectAgent"]), good_cluster, good_org) == {["Preparation 5", "connectAgent.serviceAccountPath"]}
	nested := object.union(object.remove(good_overrides, ["connectAgent"]), {"mart": {"serviceAccountPath": "m", "connectAgent": {"serviceAccountPath": "m"}}})
	only(nested, good_cluster, good_org) == set()
}

test_mart_without_host_alias_and_certificates if {
	o := with_overrides({"mart": {"serviceAccountPath": "m", "hostAlias": "mart.acme.example", "sslCertPath": "c", "sslKeyPath": "k"}})
	only(o, good_cluster, good_org) == {["Preparation 5", "mart.hostAlias"], ["Preparation 5", "mart.sslCertPath"], ["Preparation 5", "mart.sslKeyPath"]}
}

# ---- Runtime installation

test_external_seed_host if {
	only(object.remove(good_overrides, ["cassandra"]), good_cluster, good_org) == {["Runtime installation 3", "cassandra.externalSeedHost"]}
	only(object.union(object.remove(good_overrides, ["cassandra"]), {"cassandra": {"hostNetwork": false}}), good_cluster, good_org) == {["Runtime installation 3", "cassandra.externalSeedHost"]}
	only(object.union(object.remove(good_overrides, ["cassandra"]), {"datastore": {"externalSeedHost": "10.0.0.12"}}), good_cluster, good_org) == set()
}

test_external_seed_host_is_a_datastore_node if {
	only(with_overrides({"cassandra": {"externalSeedHost": "10.9.9.9"}}), good_cluster, good_org) == {["Runtime installation 3", "cassandra.externalSeedHost"]}
	only(with_overrides({"cassandra": {"externalSeedHost": "10.9.9.9"}}), object.remove(good_cluster, ["datastore_nodes"]), good_org) == set()
}

# After the upgrade (phase "after", from --phase or the cluster facts) step 6 has removed
# externalSeedHost: its absence is what is checked then, and its presence is the violation.
test_external_seed_host_after_the_upgrade if {
	after := object.remove(good_overrides, ["cassandra"])
	found_in({"overrides": after, "cluster": good_cluster, "organization": good_org, "phase": "after"}) == set()
	found_in({"overrides": after, "cluster": with_cluster({"phase": "after"}), "organization": good_org}) == set()
	found_in({"overrides": good_overrides, "cluster": good_cluster, "organization": good_org, "phase": "after"}) == {["Runtime installation 6", "cassandra.externalSeedHost"]}
	found_in({"overrides": after, "cluster": good_cluster, "organization": good_org, "phase": "before"}) == {["Runtime installation 3", "cassandra.externalSeedHost"]}
	found_in({"overrides": good_overrides, "cluster": good_cluster, "organization": good_org, "phase": "later"}) == {["Requirements", "phase"]}
}

found_in(inp) := {[v.step, v.key] | some v in vs} if {
	vs := runtime_upgrade.violations with input as inp
}

test_dry_run_flag_by_orchestrator_version if {
	runtime_upgrade.dry_run_flag == "--dry-run=true" with input as {"cluster": {"orchestrator_version": "1.17.9"}}
	runtime_upgrade.dry_run_flag == "--dry-run=client" with input as {"cluster": {"orchestrator_version": "1.18"}}
	runtime_upgrade.dry_run_flag == "--dry-run=client" with input as {"cluster": {"orchestrator_version": "v1.21.2"}}
	not runtime_upgrade.dry_run_flag with input as {"cluster": {}}
}

test_non_object_input_does_not_crash if {
	vs := runtime_upgrade.violations with input as {"overrides": null}
	count(vs) > 10
}
