package service

import (
	"strings"
	"testing"

	"github.com/adcamp/adcamp"
)

// TestCommonPasswords: the passwords of the breach list, and the ways
// people dress them up to pass a length rule (capitals, digits and
// symbols around them, letters written as digits, a word repeated), are
// refused; passphrases and random passwords are not.
func TestCommonPasswords(t *testing.T) {
	t.Parallel()
	if n := len(commonPasswords()); n < 30000 {
		t.Errorf("the list of common passwords holds %d, want the 30,000 of the breach list and more", n)
	}
	for _, c := range []struct {
		password string
		common   bool
	}{
		{"Password123!", true},
		{"PASSWORD123!", true},
		{"password123!!", true},
		{"Password123?!", true},
		{"P@ssw0rd123!", true},
		{"P@$$w0rd2024!", true},
		{"123Password!!", true},
		{"Sunshine2024!", true},
		{"iloveyou12345", true},
		{"Monkey!123456", true},
		{"qwertyuiop123", true},
		{"dragondragon", true},
		{"Trustno1trustno1", true},
		{"1q2w3e4r5t6y", true},
		{"123456789012", true},
		{"adcamppassword", true},
		{"a calm and long passphrase", false},
		{"seven purple otters ate lunch", false},
		{"vN3#pQ8z!kL2", false},
		{"x7#9$2@4!8&1", false},
		{"Correct Horse Battery Staple 9", false},
	} {
		if got := isCommonPassword(c.password); got != c.common {
			t.Errorf("isCommonPassword(%q) = %v, want %v", c.password, got, c.common)
		}
		var is adcamp.Issues
		checkNewPassword(&is, "password", c.password, "ann@example.com")
		if refused := len(is) > 0 && strings.Contains(is[0].Issue, "common"); refused != c.common {
			t.Errorf("checkNewPassword(%q) = %v, want a refusal as common: %v", c.password, is, c.common)
		}
	}
}

// BenchmarkCommonPassword: a check of a new password against the list,
// once loaded.
func BenchmarkCommonPassword(b *testing.B) {
	commonPasswords()
	for b.Loop() {
		isCommonPassword("Seven purple otters ate 12 lunches!")
	}
}
