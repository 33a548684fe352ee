package service

import (
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/adcamp/adcamp"
)

// TestPasswordHash: the hash is Argon2id with at least OWASP's
// parameters, written with them; it checks the right password only; a
// hash made with other parameters still checks, and asks to be made
// again.
func TestPasswordHash(t *testing.T) {
	h := hashPassword("correct horse battery")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hashPassword = %q, want an Argon2id PHC string with m=19456 (19 MiB), t=2, p=1", h)
	}
	if h2 := hashPassword("correct horse battery"); h2 == h {
		t.Error("two hashes of one password are equal: the salt is not random")
	}
	for _, c := range []struct {
		password string
		ok       bool
	}{{"correct horse battery", true}, {"correct horse batterY", false}, {"", false}} {
		ok, rehash, err := checkPassword(h, c.password)
		if err != nil || ok != c.ok || rehash {
			t.Errorf("checkPassword(%q) = %v, %v, %v; want %v, false, nil", c.password, ok, rehash, err, c.ok)
		}
	}
	// A hash of lower parameters (as an older release might have made).
	old := passwordParams
	passwordParams = argonParams{memory: 8 * 1024, passes: 1, threads: 1}
	weak := hashPassword("correct horse battery")
	passwordParams = old
	if ok, rehash, err := checkPassword(weak, "correct horse battery"); !ok || !rehash || err != nil {
		t.Errorf("checkPassword(hash of older parameters) = %v, %v, %v; want true, true (rehash), nil", ok, rehash, err)
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
		"$argon2id$v=19$m=0,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"} {
		if _, _, err := checkPassword(bad, "x"); err == nil {
			t.Errorf("checkPassword(%q) accepted a malformed hash", bad)
		}
	}
}

func TestCheckNewPassword(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		password string
		issue    string // "" for none
	}{
		{"a long enough passphrase", ""},
		{"short pass", "at least 12"},
		{"password1234", "most common"},
		{"PASSWORD1234", "most common"},
		{"Password1234!", "most common"},
		{"ann@example.com", "email"},
		{"annabelle.smith", "email"},
		{"zzzzzzzzzzzzzzzz", "repeated"},
		{"éééééééééééé", "repeated"},
		{strings.Repeat("long ", 60), "at most"},
		{"tab\tinside password", "control"},
	} {
		var is adcamp.Issues
		email := "ann@example.com"
		if strings.HasPrefix(c.password, "annabelle") {
			email = "annabelle.smith@example.com"
		}
		checkNewPassword(&is, "password", c.password, email)
		switch {
		case c.issue == "" && len(is) > 0:
			t.Errorf("checkNewPassword(%q) = %v, want no issue", c.password, is)
		case c.issue != "" && (len(is) != 1 || !strings.Contains(is[0].Issue, c.issue)):
			t.Errorf("checkNewPassword(%q) = %v, want an issue about %q", c.password, is, c.issue)
		}
	}
}

// TestMatchTOTP: a code matches in its step and one step either side,
// and never at or before the last step accepted.
func TestMatchTOTP(t *testing.T) {
	t.Parallel()
	const secret = "JBSWY3DPEHPK3PXP"
	now := time.Unix(1_800_000_000, 0)
	code, err := totp.GenerateCode(secret, now)
	if err != nil {
		t.Fatal(err)
	}
	step := now.Unix() / totpPeriod
	for _, c := range []struct {
		name string
		at   time.Time
		last int64
		ok   bool
	}{
		{"now", now, 0, true},
		{"30 s later", now.Add(30 * time.Second), 0, true},
		{"30 s earlier", now.Add(-30 * time.Second), 0, true},
		{"90 s later", now.Add(90 * time.Second), 0, false},
		{"used already", now, step, false},
		{"a later step used", now, step + 1, false},
	} {
		got, ok := matchTOTP(secret, code, c.last, c.at)
		if ok != c.ok || (ok && got != step) {
			t.Errorf("%s: matchTOTP = %d, %v; want %v (step %d)", c.name, got, ok, c.ok, step)
		}
	}
	if _, ok := matchTOTP(secret, " "+code[:3]+" "+code[3:]+" ", 0, now); !ok {
		t.Error("matchTOTP refused the code typed with spaces")
	}
	if _, ok := matchTOTP(secret, "000000", 0, now); ok && code != "000000" {
		t.Error("matchTOTP accepted a wrong code")
	}
}
