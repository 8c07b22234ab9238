package regolith.pipeline.deploy_test

import data.regolith.pipeline.deploy

job := {"vcs_type": "github", "username": "acme", "reponame": "api", "build_num": 42, "branch": "main", "lifecycle": "finished", "outcome": "success"}

pipeline := {"tests": {"github/acme/api": {"42": [{"name": "t1", "classname": "c", "result": "success"}]}}}

clean := {"versions": {"NPM/a@1.0.0": {"versionKey": {"system": "NPM", "name": "a", "version": "1.0.0"}, "licenses": ["MIT"]}}, "missing": []}

test_a_green_job_on_main_deploys if {
	d := deploy.decision with input as {"payload": job} with data.pipeline as pipeline with data.insights as clean
	d.allow
	count(d.reasons) == 0
}

test_another_branch_does_not if {
	d := deploy.decision with input as {"payload": object.union(job, {"branch": "feature"})} with data.pipeline as pipeline with data.insights as clean
	not d.allow
	some r in d.reasons
	startswith(r, "branch \"feature\"")
}

test_a_failed_test_blocks if {
	p := {"tests": {"github/acme/api": {"42": [{"name": "t1", "classname": "c", "result": "failure"}]}}}
	d := deploy.decision with input as {"payload": job} with data.pipeline as p with data.insights as clean
	not d.allow
	"test c.t1: failure" in d.reasons
}

test_missing_tests_block_unless_not_required if {
	d := deploy.decision with input as {"payload": job} with data.pipeline as {} with data.insights as clean
	"no test metadata is known for this job" in d.reasons
	d2 := deploy.decision with input as {"payload": job} with data.pipeline as {} with data.insights as clean with data.pipeline_deploy as {"require_tests": false}
	d2.allow
}

test_a_supply_chain_violation_blocks if {
	bad := {"versions": {"NPM/a@1.0.0": {"versionKey": {"system": "NPM", "name": "a", "version": "1.0.0"}, "licenses": ["GPL-3.0-only"]}}, "missing": []}
	d := deploy.decision with input as {"payload": job} with data.pipeline as pipeline with data.insights as bad
	not d.allow
	"supply chain: NPM/a@1.0.0: licence \"GPL-3.0-only\" is not in the allowed list" in d.reasons
}

test_an_unfinished_job_does_not_deploy if {
	d := deploy.decision with input as {"payload": object.union(job, {"lifecycle": "running", "outcome": null})} with data.pipeline as pipeline with data.insights as clean
	"the job has not finished" in d.reasons
}
