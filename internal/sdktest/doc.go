// Package sdktest tests the Go SDK (the module in client/) against the
// real API: the service and its HTTP layer over real SQLite, in process.
// It lives in the server's module, because the SDK's module cannot (and
// must not) import the server; the SDK's own tests need no server.
package sdktest
