// Package adcampapi is the Campaign Advertising Open API client that
// oapi-codegen generates, with its default settings, from the repository's
// openapi.yaml (adcampapi.gen.go). It is kept to prove that the document
// serves a generated client: its test drives a live adcamp serve with it.
// For a client to use, see the Go SDK (github.com/adcamp/adcamp/client).
package adcampapi

//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../../../openapi.yaml
