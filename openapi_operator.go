package adcamp

import _ "embed"

// OpenAPIOperator describes the operator listener (the marketplace's ad
// server's interface), openapi-operator.yaml: a document of its own, so
// that account holders' clients never see these routes. Served at
// /operator/v1/openapi.json on the operator listener.
//
//go:embed openapi-operator.yaml
var OpenAPIOperator []byte
