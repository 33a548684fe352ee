package httpapi

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/client/signing"
)

// scopeExtension names, on every operation of openapi.yaml, the scope a
// key needs for it ("campaigns:read", or "none"). The document is the one
// place it is written: the server reads its table from there.
const scopeExtension = "x-required-scope"

// documentedScopes reads the required scope of every operation of the
// document (as JSON) into a table by route pattern ("GET /v1/campaigns"),
// under both prefixes. HEAD shares GET's pattern, as in the mux.
func documentedScopes(spec []byte) (map[string]adcamp.Scope, error) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(spec, &doc); err != nil {
		return nil, err
	}
	out := map[string]adcamp.Scope{}
	for path, ops := range doc.Paths {
		for method, raw := range ops {
			var op map[string]any
			if json.Unmarshal(raw, &op) != nil || method == "parameters" || method == "servers" || method == "head" {
				continue
			}
			text, _ := op[scopeExtension].(string)
			if text == "" {
				continue // TestEveryOperationNamesItsScope says so
			}
			sc, ok := adcamp.ParseScope(text)
			if !ok {
				return nil, fmt.Errorf("openapi.yaml: %s %s: %s %q is not none or group:read|write", strings.ToUpper(method), path, scopeExtension, text)
			}
			for _, p := range []string{signing.PrefixCanonical, signing.PrefixShort} {
				out[strings.ToUpper(method)+" "+p+path] = sc
			}
		}
	}
	return out, nil
}

// requiredScope is what a signed route requires of a key. A route the
// document gives no scope (a test fails for it) requires write on the
// group its path suggests, so that nothing is open by mistake.
func (s *Server) requiredScope(pattern string) adcamp.Scope {
	if sc, ok := s.scopes[pattern]; ok {
		return sc
	}
	return guessScope(pattern)
}

// guessScope is requiredScope's fallback.
func guessScope(pattern string) adcamp.Scope {
	g := adcamp.ScopeCampaigns
	switch {
	case strings.HasSuffix(pattern, "/changes"):
		g = adcamp.ScopeHistory
	case strings.Contains(pattern, "/report"):
		g = adcamp.ScopeReports
	case strings.Contains(pattern, "/webhook"), strings.Contains(pattern, "/events"):
		g = adcamp.ScopeWebhooks
	}
	return adcamp.Scope{Group: g, Access: adcamp.AccessWrite}
}

// WithTrustedProxies believes the X-Forwarded-For of requests whose
// connection comes from one of prefixes: the client address is then the
// rightmost one in the header that is not itself a trusted proxy.
func WithTrustedProxies(prefixes []netip.Prefix) Option {
	return func(s *Server) { s.trusted = prefixes }
}

func (s *Server) isTrusted(a netip.Addr) bool {
	for _, p := range s.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientIP is the address a key's allowed ranges are checked against: the
// connection's, unless it is a trusted proxy's; then X-Forwarded-For is
// read from the right, skipping trusted proxies, and the first address
// that is not one counts (or the leftmost, if all are). What an untrusted
// peer sends in X-Forwarded-For changes nothing.
func (s *Server) clientIP(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	peer = peer.Unmap()
	if len(s.trusted) == 0 || !s.isTrusted(peer) {
		return peer
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return client // a garbled hop: believe nothing left of it
		}
		client = a.Unmap()
		if !s.isTrusted(client) {
			return client
		}
	}
	return client
}
