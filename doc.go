// Package adcamp is the domain vocabulary of the Campaign Advertising Open
// API: accounts, credentials, campaigns, money, identifiers, the error
// vocabulary and the optional-field type used by partial updates.
//
// It imports nothing of the project's own. The business rules that use
// these types live in internal/service; storage adapters live in
// internal/sqlite and internal/postgres; the HTTP surface lives in
// internal/httpapi.
package adcamp
