# The supply-chain policy regolith ships for `regolith deps-check` and for servers that run
# the package insights adapter. It reads data.insights (the adapter's document) and lists
# violations: {system, package, version, rule, message}.
#
# Settings (all optional) in data.supply_chain:
#   allowed_licenses     SPDX identifiers allowed (default: the permissive set below)
#   require_provenance   ["NPM/name", ...] packages that must have verified SLSA provenance
#   ignore_advisories    OSV ids accepted after review
#   allow_deprecated     ["NPM/name", ...] deprecated packages accepted for now
package regolith.supply_chain

default_allowed_licenses := {
	"0BSD", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "BSL-1.0", "CC0-1.0", "ISC",
	"MIT", "MIT-0", "Python-2.0", "PSF-2.0", "Unlicense", "Zlib", "BlueOak-1.0.0", "X11",
}

default settings := {}

settings := data.supply_chain

allowed_licenses := {l | some l in settings.allowed_licenses} if settings.allowed_licenses

else := default_allowed_licenses

require_provenance := {p | some p in object.get(settings, "require_provenance", [])}

ignore_advisories := {a | some a in object.get(settings, "ignore_advisories", [])}

allow_deprecated := {p | some p in object.get(settings, "allow_deprecated", [])}

# One SPDX expression is allowed when some choice of its OR alternatives uses only allowed
# licences. Expressions mixing parentheses with both AND and OR are judged by all their
# identifiers (stricter, never laxer).
expression_allowed(expr) if {
	not mixed(expr)
	some alternative in split(trim(expr, "()"), " OR ")
	every id in split(trim(alternative, "()"), " AND ") {
		license_id(id) in allowed_licenses
	}
}

expression_allowed(expr) if {
	mixed(expr)
	every id in identifiers(expr) {
		id in allowed_licenses
	}
}

mixed(expr) if {
	contains(expr, "(")
	contains(expr, " AND ")
	contains(expr, " OR ")
}

# "GPL-2.0-only WITH Classpath-exception-2.0" is judged by its licence.
license_id(s) := trim_space(split(trim(trim_space(s), "()"), " WITH ")[0])

identifiers(expr) := {license_id(t) |
	some t in regex.split(`\s+(?:AND|OR)\s+`, replace(replace(expr, "(", " "), ")", " "))
	trim_space(t) != ""
}

versions[key] := v if some key, v in data.insights.versions

package_name(v) := sprintf("%s/%s", [v.versionKey.system, v.versionKey.name])

violation(v, rule, message) := {
	"system": v.versionKey.system,
	"package": v.versionKey.name,
	"version": v.versionKey.version,
	"rule": rule,
	"message": message,
}

violations contains violation(v, "license", sprintf("licence %q is not in the allowed list", [l])) if {
	some v in versions
	some l in v.licenses
	l != "non-standard"
	not expression_allowed(l)
}

violations contains violation(v, "license", "the licence is non-standard (no SPDX identifier): review it") if {
	some v in versions
	"non-standard" in v.licenses
}

violations contains violation(v, "license", "no licence is known") if {
	some v in versions
	count(object.get(v, "licenses", [])) == 0
}

violations contains violation(v, "advisory", sprintf("advisory %s", [a.id])) if {
	some v in versions
	some a in object.get(v, "advisoryKeys", [])
	not a.id in ignore_advisories
}

violations contains violation(v, "deprecated", "the version is deprecated") if {
	some v in versions
	v.isDeprecated == true
	not package_name(v) in allow_deprecated
}

violations contains violation(v, "provenance", "no verified SLSA provenance") if {
	some v in versions
	package_name(v) in require_provenance
	not verified_provenance(v)
}

verified_provenance(v) if {
	some p in v.slsaProvenances
	p.verified == true
}

violations contains {"system": k.system, "package": k.name, "version": k.version, "rule": "not_found", "message": "the insights service does not know this version"} if {
	some key in data.insights.missing
	k := parse_key(key)
}

parse_key(key) := {"system": system, "name": name, "version": version} if {
	system := split(key, "/")[0]
	rest := substring(key, count(system) + 1, -1)
	parts := split(rest, "@")
	version := parts[count(parts) - 1]
	name := substring(rest, 0, (count(rest) - count(version)) - 1)
}

# Whether the project may ship: no violations.
default allow := false

allow if count(violations) == 0
