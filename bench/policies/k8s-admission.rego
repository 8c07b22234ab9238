# Kubernetes validating admission policy over an AdmissionReview (Pods and workload
# controllers): trusted registries, no privileged containers, no :latest tags, CPU and
# memory limits, non-root, no host namespaces, required labels. `deny` is the set of
# violation messages; the request is admitted when it is empty.
package k8s.admission

trusted_registries := ["registry.corp.example.com/", "gcr.io/acme-prod/", "public.ecr.aws/acme/"]

required_labels := {"app.kubernetes.io/name", "app.kubernetes.io/version", "team", "cost-center"}

workload_kinds := {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"}

pod_spec := input.request.object.spec if input.request.kind.kind == "Pod"

pod_spec := input.request.object.spec.template.spec if input.request.kind.kind in workload_kinds

pod_labels := input.request.object.metadata.labels if input.request.kind.kind == "Pod"

pod_labels := input.request.object.spec.template.metadata.labels if input.request.kind.kind in workload_kinds

input_containers contains c if some c in pod_spec.containers

input_containers contains c if some c in pod_spec.initContainers

deny contains msg if {
	some c in input_containers
	not trusted_image(c.image)
	msg := sprintf("container %q uses image %q from an untrusted registry", [c.name, c.image])
}

deny contains msg if {
	some c in input_containers
	c.securityContext.privileged == true
	msg := sprintf("container %q must not be privileged", [c.name])
}

deny contains msg if {
	some c in input_containers
	endswith(c.image, ":latest")
	msg := sprintf("container %q uses the :latest tag", [c.name])
}

deny contains msg if {
	some c in input_containers
	some resource in ["cpu", "memory"]
	not c.resources.limits[resource]
	msg := sprintf("container %q has no %s limit", [c.name, resource])
}

deny contains msg if {
	some c in input_containers
	not run_as_non_root(c)
	msg := sprintf("container %q must set runAsNonRoot", [c.name])
}

deny contains msg if {
	some field in ["hostNetwork", "hostPID", "hostIPC"]
	pod_spec[field] == true
	msg := sprintf("pod must not use %s", [field])
}

deny contains msg if {
	some label in required_labels
	not pod_labels[label]
	msg := sprintf("missing required label %q", [label])
}

trusted_image(image) if {
	some prefix in trusted_registries
	startswith(image, prefix)
}

run_as_non_root(c) if c.securityContext.runAsNonRoot == true

run_as_non_root(c) if {
	pod_spec.securityContext.runAsNonRoot == true
	not c.securityContext.runAsNonRoot == false
}
