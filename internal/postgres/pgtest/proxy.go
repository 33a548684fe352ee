package pgtest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy stands between a test and the database, so that the test can cut
// the database off (as if it were down) and bring it back.
type Proxy struct {
	// URL is the schema's URL with the proxy's address for its host.
	URL string

	t            testing.TB
	addr, target string
	mu           sync.Mutex
	l            net.Listener
	conns        []net.Conn
}

// NewProxy starts a proxy to the database of s, stopped when t ends. It
// skips t when s.URL is not a URL with a host.
func NewProxy(t testing.TB, s *Schema) *Proxy {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil || u.Host == "" {
		t.Skipf("%s is not a URL with a host: the proxy cannot stand in for it", EnvURL)
	}
	p := &Proxy{t: t, addr: "127.0.0.1:0", target: u.Host}
	p.Start()
	u.Host = p.addr
	p.URL = u.String()
	t.Cleanup(p.Stop)
	return p
}

// Start listens (again, on the same address after Stop) and forwards
// every connection to the database.
func (p *Proxy) Start() {
	p.t.Helper()
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy: listen on %s: %v", p.addr, err)
	}
	p.mu.Lock()
	p.l, p.addr = l, l.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go pipe(c, up)
			go pipe(up, c)
		}
	}()
}

func pipe(dst, src net.Conn) {
	io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// Stop stops listening and breaks every connection through the proxy:
// the database seems down until Start.
func (p *Proxy) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.l != nil {
		p.l.Close()
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
