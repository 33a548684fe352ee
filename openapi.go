package adcamp

import _ "embed"

// OpenAPI is the API's description, openapi.yaml, as shipped in the binary
// and served at {prefix}/openapi.json.
//
//go:embed openapi.yaml
var OpenAPI []byte
