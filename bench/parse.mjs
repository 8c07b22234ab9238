// Parser throughput: generates several MB of realistic Rego (v1 syntax), parses it
// with the built library (npm run build first) and prints MB/s.
//   npm run bench:parse        or        node bench/parse.mjs [targetMB]

import { parseModule } from '../dist/index.js';

const targetMB = Number(process.argv[2] ?? 8);

function moduleText(i) {
  return `# METADATA
# title: Policy ${i}
# description: generated policy module number ${i}
package bench.policies.p${i}

import data.common.roles
import input.request as req

default allow := false

# Admins can do anything.
allow if {
	some role in input.user.roles
	role == "admin"
}

allow if {
	input.method == "GET"
	startswith(input.path, "/public/")
	not deny_all
}

deny_all if data.config.maintenance == true

violations contains msg if {
	some i, c in input.containers
	not c.securityContext.runAsNonRoot
	msg := sprintf("container %d (%s) must not run as root", [i, c.name])
}

violations contains msg if {
	c := input.containers[_]
	count([p | p := c.ports[_]; p.hostPort > 0]) > 0
	msg := concat(": ", ["host ports are not allowed", c.name])
}

limits[name] := {"cpu": cpu, "mem": mem * 1024} if {
	some name
	res := input.resources[name]
	cpu := object.get(res, "cpu", 1)
	mem := res.memory / 2 + ${i} % 7
}

by_team := {team: members |
	some team in {t | t := input.users[_].team}
	members := [u.name | u := input.users[_]; u.team == team]
}

is_weekend(day) if day in {"sat", "sun"}

level(x) := "high" if x > 100
else := "medium" if x > 10
else := "low"

all_valid if {
	every k, v in input.labels {
		regex.match("^[a-z0-9-]+$", k)
		is_string(v)
	}
}

audit.events[id] := e if {
	e := input.events[id]
	e.severity >= 3
	e.ts < time.now_ns() - 3600 * 1000000000
} 

check_with if allow with input.method as "GET" with data.config.maintenance as false

nums := [1, 2.5, -3, 1e10, 0.001, "a\\tb\\u00e9", \`raw\\string\`, null, true, false, set(), {}, {"k": [1, {2}]}]
`;
}

const modules = [];
let bytes = 0;
for (let i = 0; bytes < targetMB * 1024 * 1024; i++) {
  const m = moduleText(i);
  modules.push(m);
  bytes += Buffer.byteLength(m);
}

// Warm up the JIT, then measure a few rounds and report the best.
for (let i = 0; i < Math.min(200, modules.length); i++) parseModule(modules[i], { filename: `m${i}.rego` });

let best = Infinity;
let rules = 0;
for (let round = 0; round < 3; round++) {
  rules = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < modules.length; i++) rules += parseModule(modules[i], { filename: `m${i}.rego` }).rules.length;
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  best = Math.min(best, ms);
}
const mb = bytes / (1024 * 1024);
console.log(
  `parsed ${modules.length} modules, ${mb.toFixed(2)} MB, ${rules} rules: best of 3 ${best.toFixed(0)} ms = ${(mb / (best / 1000)).toFixed(2)} MB/s`,
);
