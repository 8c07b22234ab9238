# "May this job's artefact deploy?" — the example rule for the pipeline_webhook event
# adapter. The input is the webhook body as the build pipeline sends it ({"payload": Job});
# it reads data.pipeline (build_pipeline adapter) and the supply-chain verdict over
# data.insights (package_insights adapter).
#
# Settings (optional) in data.pipeline_deploy:
#   branches        branches that may deploy (default ["main"])
#   require_tests   whether the job must have test metadata, all passing (default true)
package regolith.pipeline.deploy

import data.regolith.supply_chain

default settings := {}

settings := data.pipeline_deploy

branches := object.get(settings, "branches", ["main"])

require_tests := object.get(settings, "require_tests", true)

job := input.payload

project := sprintf("%s/%s/%s", [job.vcs_type, job.username, job.reponame])

# The job's test metadata, as the build_pipeline adapter read it.
tests := data.pipeline.tests[project][format_int(job.build_num, 10)]

reasons contains "the job has not finished" if job.lifecycle != "finished"

reasons contains sprintf("the job's outcome is %v, not success", [job.outcome]) if {
	job.lifecycle == "finished"
	job.outcome != "success"
}

reasons contains sprintf("branch %q may not deploy (allowed: %v)", [job.branch, branches]) if {
	not job.branch in branches
}

reasons contains "no test metadata is known for this job" if {
	require_tests
	not tests
}

reasons contains sprintf("test %s.%s: %s", [t.classname, t.name, t.result]) if {
	require_tests
	some t in tests
	not t.result in {"success", "skipped"}
}

reasons contains sprintf("supply chain: %s/%s@%s: %s", [v.system, v["package"], v.version, v.message]) if {
	some v in supply_chain.violations
}

# The answer the webhook sender gets.
decision := {"allow": count(reasons) == 0, "reasons": reasons}
