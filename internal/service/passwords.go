package service

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/adcamp/adcamp"
)

// Passwords are hashed with Argon2id, in the PHC string format that keeps
// the parameters beside the hash
// ($argon2id$v=19$m=19456,t=2,p=1$salt$hash), so that they can be raised
// later: a hash made with lower ones is made again at the next sign-in.
// The parameters are OWASP's first recommendation (19 MiB, 2 passes, one
// thread): about 40 ms on a core of the test machine.
type argonParams struct {
	memory  uint32 // KiB
	passes  uint32
	threads uint8
}

var passwordParams = argonParams{memory: 19 * 1024, passes: 2, threads: 1}

const (
	saltLen = 16
	hashLen = 32
	// MinPasswordLength and maxPasswordLength bound a password, in
	// characters.
	MinPasswordLength = 12
	maxPasswordLength = 256
)

// hashPassword returns the PHC string of password under passwordParams
// and a fresh salt.
func hashPassword(password string) string {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		panic(err)
	}
	p := passwordParams
	key := argon2.IDKey([]byte(password), salt, p.passes, p.memory, p.threads, hashLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.memory, p.passes, p.threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

var errBadHash = errors.New("not an Argon2id hash in the PHC string format")

// parseHash reads a PHC string made by hashPassword.
func parseHash(encoded string) (argonParams, []byte, []byte, error) {
	var p argonParams
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return p, nil, nil, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.memory, &p.passes, &p.threads); err != nil ||
		p.memory == 0 || p.passes == 0 || p.threads == 0 || p.memory > 4<<20 || p.passes > 100 {
		return p, nil, nil, errBadHash
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(key) < 16 {
		return p, nil, nil, errBadHash
	}
	return p, salt, key, nil
}

// checkPassword reports whether password matches encoded, comparing in
// constant time, and whether encoded should be made again with today's
// parameters.
func checkPassword(encoded, password string) (ok, rehash bool, err error) {
	p, salt, key, err := parseHash(encoded)
	if err != nil {
		return false, false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.passes, p.memory, p.threads, uint32(len(key)))
	ok = subtle.ConstantTimeCompare(got, key) == 1
	return ok, ok && p != passwordParams, nil
}

// dummyHash is checked against when there is no user to check, so that a
// sign-in with an unknown email takes as long as one with a wrong
// password. It is made when first needed.
var dummyHash = sync.OnceValue(func() string { return hashPassword("no user has this password; it only takes time") })

func firstRuneLen(s string) int {
	_, n := utf8.DecodeRuneInString(s)
	return max(n, 1)
}

// The lists of common passwords: the breach list (the 30,000 most common
// of ten million leaked passwords, gzipped: see commonpw/README.md for
// its source and licence), and adcamp's own guesses of 12 characters or
// more.
var (
	//go:embed commonpw/passwords.txt.gz
	breachList []byte
	//go:embed common_passwords.txt
	ownList string
)

// commonPasswords is the set of both lists, in lower case, read once when
// first needed.
var commonPasswords = sync.OnceValue(func() map[string]bool {
	zr, err := gzip.NewReader(bytes.NewReader(breachList))
	if err != nil {
		panic("the built-in list of common passwords: " + err.Error())
	}
	breach, err := io.ReadAll(zr)
	if err != nil {
		panic("the built-in list of common passwords: " + err.Error())
	}
	m := make(map[string]bool, 32000)
	for _, text := range []string{string(breach), ownList} {
		sc := bufio.NewScanner(strings.NewReader(text))
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
				m[strings.ToLower(line)] = true
			}
		}
	}
	return m
})

// minCommonCore is the shortest common password looked for inside a
// longer one: shorter words (abc, tom) are too likely by chance.
const minCommonCore = 4

// isCommonPassword reports whether password is a common one, or one
// dressed up the ways people make a common password pass a length rule
// (and password crackers' rules try first): in capitals, with digits and
// symbols after it or around it (Password123!, 123password!!), with
// letters written as digits or symbols (P@ssw0rd), or repeated
// (dragondragon).
func isCommonPassword(password string) bool {
	list := commonPasswords()
	s := strings.ToLower(password)
	for _, base := range []string{s, strings.TrimRightFunc(s, notLetter), strings.TrimFunc(s, notLetter)} {
		for _, c := range []string{base, repeatedUnit(base)} {
			for _, v := range []string{c, unleet(c, 'i'), unleet(c, 'l')} {
				if utf8.RuneCountInString(v) >= minCommonCore && list[v] {
					return true
				}
			}
		}
	}
	return false
}

func notLetter(r rune) bool { return !unicode.IsLetter(r) }

// unleet reads the digits and symbols written for letters as those
// letters (p@ssw0rd is password), the digit 1 as the letter one (i or l).
func unleet(s string, one rune) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '@', '4':
			return 'a'
		case '3':
			return 'e'
		case '1', '!', '|':
			return one
		case '0':
			return 'o'
		case '$', '5':
			return 's'
		case '7', '+':
			return 't'
		}
		return r
	}, s)
}

// repeatedUnit returns u if s is u written twice or more, else "".
func repeatedUnit(s string) string {
	for n := 1; n <= len(s)/2; n++ {
		if len(s)%n == 0 && strings.Repeat(s[:n], len(s)/n) == s {
			return s[:n]
		}
	}
	return ""
}

// checkNewPassword adds to issues what is wrong with password as a new
// password of the user with email: too short or too long, a common one,
// the email itself, or one character repeated.
func checkNewPassword(issues *adcamp.Issues, field, password, email string) {
	n := utf8.RuneCountInString(password)
	lower := strings.ToLower(password)
	local, _, _ := strings.Cut(strings.ToLower(email), "@")
	switch {
	case n < MinPasswordLength:
		issues.AddKind(field, adcamp.IssueTooShort, fmt.Sprint(MinPasswordLength), "must be at least %d characters long", MinPasswordLength)
	case n > maxPasswordLength:
		issues.AddKind(field, adcamp.IssueTooLong, fmt.Sprint(maxPasswordLength), "must be at most %d characters long", maxPasswordLength)
	case !utf8.ValidString(password) || strings.IndexFunc(password, unicode.IsControl) >= 0:
		issues.AddKind(field, adcamp.IssueControl, "", "must not contain control characters")
	case isCommonPassword(password):
		issues.AddKind(field, adcamp.IssueCommonPassword, "", "is one of the most common passwords; choose another")
	case lower == strings.ToLower(email) || (len(local) >= 4 && lower == local):
		issues.AddKind(field, adcamp.IssueEmailPassword, "", "must not be your email address")
	case strings.Count(password, password[:firstRuneLen(password)])*firstRuneLen(password) == len(password):
		issues.AddKind(field, adcamp.IssueRepeated, "", "must not be one character repeated")
	}
}
