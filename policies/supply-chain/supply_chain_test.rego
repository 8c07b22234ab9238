package regolith.supply_chain_test

import data.regolith.supply_chain

version(name, licenses) := {
	"versionKey": {"system": "NPM", "name": name, "version": "1.0.0"},
	"licenses": licenses,
	"advisoryKeys": [],
	"isDeprecated": false,
	"slsaProvenances": [],
}

rules(vs) := {x.rule | some x in found} if {
	found := supply_chain.violations with data.insights as {"versions": vs, "missing": []}
}

test_permissive_licences_pass if {
	count(rules({"NPM/a@1.0.0": version("a", ["MIT"]), "NPM/b@1.0.0": version("b", ["Apache-2.0 OR GPL-3.0-only"])})) == 0
}

test_copyleft_is_flagged if {
	rules({"NPM/a@1.0.0": version("a", ["GPL-3.0-only"])}) == {"license"}
}

test_and_needs_every_licence if {
	rules({"NPM/a@1.0.0": version("a", ["MIT AND GPL-2.0-only"])}) == {"license"}
}

test_mixed_expression_is_judged_strictly if {
	rules({"NPM/a@1.0.0": version("a", ["(MIT OR GPL-2.0-only) AND Apache-2.0"])}) == {"license"}
	count(rules({"NPM/a@1.0.0": version("a", ["(MIT OR ISC) AND Apache-2.0"])})) == 0
}

test_with_exception_is_judged_by_its_licence if {
	count(rules({"NPM/a@1.0.0": version("a", ["Apache-2.0 WITH LLVM-exception"])})) == 0
}

test_allow_list_overridable if {
	vs := {"NPM/a@1.0.0": version("a", ["GPL-3.0-only"])}
	count(supply_chain.violations) == 0 with data.insights as {"versions": vs, "missing": []}
		with data.supply_chain.allowed_licenses as ["GPL-3.0-only"]
}

test_non_standard_and_unknown if {
	rules({"NPM/a@1.0.0": version("a", ["non-standard"])}) == {"license"}
	rules({"NPM/a@1.0.0": version("a", [])}) == {"license"}
}

test_advisories_deprecation_provenance if {
	v := object.union(version("a", ["MIT"]), {"advisoryKeys": [{"id": "GHSA-1"}], "isDeprecated": true})
	rules({"NPM/a@1.0.0": v}) == {"advisory", "deprecated"}
	count(supply_chain.violations) == 0 with data.insights as {"versions": {"NPM/a@1.0.0": v}, "missing": []}
		with data.supply_chain as {"ignore_advisories": ["GHSA-1"], "allow_deprecated": ["NPM/a"]}
	p := version("a", ["MIT"])
	found := supply_chain.violations with data.insights as {"versions": {"NPM/a@1.0.0": p}, "missing": []}
		with data.supply_chain.require_provenance as ["NPM/a"]
	{x.rule | some x in found} == {"provenance"}
	signed := object.union(p, {"slsaProvenances": [{"verified": true}]})
	count(supply_chain.violations) == 0 with data.insights as {"versions": {"NPM/a@1.0.0": signed}, "missing": []}
		with data.supply_chain.require_provenance as ["NPM/a"]
}

test_missing_versions_are_reported if {
	found := supply_chain.violations with data.insights as {"versions": {}, "missing": ["NPM/@scope/x@2.0.0"]}
	some x in found
	x == {"system": "NPM", "package": "@scope/x", "version": "2.0.0", "rule": "not_found", "message": "the insights service does not know this version"}
}
