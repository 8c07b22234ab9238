# API gateway authorization: a table of 50 routes (method, path template, required
# OAuth scopes) matched against input.path (already split into segments) and input.method,
# with JWT claims already verified and decoded by the gateway (input.claims). A path
# segment "*" matches anything; "{tenant}" must equal the token's tenant claim.
package gateway

default allow := false

# Health and readiness probes are public.
allow if {
	input.method == "GET"
	input.path in [["healthz"], ["readyz"]]
}

allow if {
	valid_token
	some route in routes
	route.method == input.method
	path_matches(route.path, input.path)
	every scope in route.scopes {
		scope in token_scopes
	}
}

valid_token if {
	input.claims.iss == "https://auth.example.com/"
	"https://api.example.com" in input.claims.aud
	input.claims.exp * 1000000000 > time.now_ns()
}

token_scopes := {s | some s in split(input.claims.scope, " ")}

path_matches(pattern, path) if {
	count(pattern) == count(path)
	every i, seg in pattern {
		segment_matches(seg, path[i])
	}
}

segment_matches(p, _) if p == "*"

segment_matches(p, s) if {
	p == "{tenant}"
	s == input.claims.tenant
}

segment_matches(p, s) if p == s

routes := [
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "orders"], "scopes": ["orders:read"]},
	{"method": "POST", "path": ["api", "v1", "tenants", "{tenant}", "orders"], "scopes": ["orders:write"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "orders", "*"], "scopes": ["orders:read"]},
	{"method": "PUT", "path": ["api", "v1", "tenants", "{tenant}", "orders", "*"], "scopes": ["orders:write"]},
	{"method": "DELETE", "path": ["api", "v1", "tenants", "{tenant}", "orders", "*"], "scopes": ["orders:write", "orders:admin"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "customers"], "scopes": ["customers:read"]},
	{"method": "POST", "path": ["api", "v1", "tenants", "{tenant}", "customers"], "scopes": ["customers:write"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "customers", "*"], "scopes": ["customers:read"]},
	{"method": "PUT", "path": ["api", "v1", "tenants", "{tenant}", "customers", "*"], "scopes": ["customers:write"]},
	{"method": "DELETE", "path": ["api", "v1", "tenants", "{tenant}", "customers", "*"], "scopes": ["customers:write", "customers:admin"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "invoices"], "scopes": ["billing:read"]},
	{"method": "POST", "path": ["api", "v1", "tenants", "{tenant}", "invoices"], "scopes": ["billing:write"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "invoices", "*"], "scopes": ["billing:read"]},
	{"method": "PUT", "path": ["api", "v1", "tenants", "{tenant}", "invoices", "*"], "scopes": ["billing:write"]},
	{"method": "DELETE", "path": ["api", "v1", "tenants", "{tenant}", "invoices", "*"], "scopes": ["billing:write", "billing:admin"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "payments"], "scopes": ["billing:read"]},
	{"method": "POST", "path": ["api", "v1", "tenants", "{tenant}", "payments"], "scopes": ["billing:write"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "payments", "*"], "scopes": ["billing:read"]},
	{"method": "PUT", "path": ["api", "v1", "tenants", "{tenant}", "payments", "*"], "scopes": ["billing:write"]},
	{"method": "DELETE", "path": ["api", "v1", "tenants", "{tenant}", "payments", "*"], "scopes": ["billing:write", "billing:admin"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "products"], "scopes": ["catalog:read"]},
	{"method": "POST", "path": ["api", "v1", "tenants", "{tenant}", "products"], "scopes": ["catalog:write"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "products", "*"], "scopes": ["catalog:read"]},
	{"method": "PUT", "path": ["api", "v1", "tenants", "{tenant}", "products", "*"], "scopes": ["catalog:write"]},
	{"method": "DELETE", "path": ["api", "v1", "tenants", "{tenant}", "products", "*"], "scopes": ["catalog:write", "catalog:admin"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "inventory"], "scopes": ["catalog:read"]},
	{"method": "POST", "path": ["api", "v1", "tenants", "{tenant}", "inventory"], "scopes": ["catalog:write"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "inventory", "*"], "scopes": ["catalog:read"]},
	{"method": "PUT", "path": ["api", "v1", "tenants", "{tenant}", "inventory", "*"], "scopes": ["catalog:write"]},
	{"method": "DELETE", "path": ["api", "v1", "tenants", "{tenant}", "inventory", "*"], "scopes": ["catalog:write", "catalog:admin"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "shipments"], "scopes": ["logistics:read"]},
	{"method": "POST", "path": ["api", "v1", "tenants", "{tenant}", "shipments"], "scopes": ["logistics:write"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "shipments", "*"], "scopes": ["logistics:read"]},
	{"method": "PUT", "path": ["api", "v1", "tenants", "{tenant}", "shipments", "*"], "scopes": ["logistics:write"]},
	{"method": "DELETE", "path": ["api", "v1", "tenants", "{tenant}", "shipments", "*"], "scopes": ["logistics:write", "logistics:admin"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "users"], "scopes": ["admin:read"]},
	{"method": "POST", "path": ["api", "v1", "tenants", "{tenant}", "users"], "scopes": ["admin:write"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "users", "*"], "scopes": ["admin:read"]},
	{"method": "PUT", "path": ["api", "v1", "tenants", "{tenant}", "users", "*"], "scopes": ["admin:write"]},
	{"method": "DELETE", "path": ["api", "v1", "tenants", "{tenant}", "users", "*"], "scopes": ["admin:write", "admin:admin"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "reports"], "scopes": ["reports:read"]},
	{"method": "POST", "path": ["api", "v1", "tenants", "{tenant}", "reports"], "scopes": ["reports:write"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "reports", "*"], "scopes": ["reports:read"]},
	{"method": "PUT", "path": ["api", "v1", "tenants", "{tenant}", "reports", "*"], "scopes": ["reports:write"]},
	{"method": "DELETE", "path": ["api", "v1", "tenants", "{tenant}", "reports", "*"], "scopes": ["reports:write", "reports:admin"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "webhooks"], "scopes": ["integrations:read"]},
	{"method": "POST", "path": ["api", "v1", "tenants", "{tenant}", "webhooks"], "scopes": ["integrations:write"]},
	{"method": "GET", "path": ["api", "v1", "tenants", "{tenant}", "webhooks", "*"], "scopes": ["integrations:read"]},
	{"method": "PUT", "path": ["api", "v1", "tenants", "{tenant}", "webhooks", "*"], "scopes": ["integrations:write"]},
	{"method": "DELETE", "path": ["api", "v1", "tenants", "{tenant}", "webhooks", "*"], "scopes": ["integrations:write", "integrations:admin"]},
]
