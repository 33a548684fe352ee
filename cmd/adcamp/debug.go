package main

import (
	"net/http"
	"net/http/pprof"
	"time"
)

// debugHandler serves the Go profiler, for serve --debug-addr. It is kept
// off the API listeners: profiles show internals no API client should see,
// so an operator binds it to loopback or a private network.
func debugHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// debugTimeouts let a CPU profile or trace run for up to five minutes.
var debugTimeouts = timeouts{header: 5 * time.Second, read: 30 * time.Second, write: 5 * time.Minute, idle: 120 * time.Second}
