# The example policy of deploy/envoy: Envoy asks data.envoy.authz.allow for every request
# (plugins.envoy_ext_authz_grpc.path: envoy/authz/allow). A structured decision: allowed,
# plus a header for the application, and a 401 with a body when denied.
package envoy.authz

import rego.v1

http := input.attributes.request.http

# A bearer token's claims, unverified here: use io.jwt.decode_verify with your issuer's keys.
claims := payload if {
	[_, encoded] := split(http.headers.authorization, " ")
	[_, payload, _] := io.jwt.decode(encoded)
}

default allow := {"allowed": false, "http_status": 401, "body": "unauthorized", "headers": {"www-authenticate": "Bearer"}}

# Health checks and reads of the public catalogue need no token.
allow := {"allowed": true} if {
	http.method == "GET"
	input.parsed_path[0] in {"healthz", "catalogue"}
}

# Orders: their owner, with the user's id handed to the application and the token removed.
allow := {
	"allowed": true,
	"headers": {"x-user-id": claims.sub},
	"request_headers_to_remove": ["authorization"],
} if {
	input.parsed_path[0] == "orders"
	claims.sub == input.parsed_query.owner[0]
}
