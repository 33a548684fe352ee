package service

import (
	"context"
	"net/url"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// consoleURLSetting names the installation setting that holds the
// console's address, as serve last announced it.
const consoleURLSetting = "console_url"

// SetConsoleURL records the console's address as its users reach it
// (serve's --console-url, or its listener's), so that the links the admin
// command line prints lead there. With several serve processes the last
// to start is recorded: give them one --console-url.
func (s *Service) SetConsoleURL(ctx context.Context, consoleURL string) error {
	u, err := url.Parse(consoleURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		var issues adcamp.Issues
		issues.Add("console-url", "must be an http:// or https:// address, got %q", consoleURL)
		return issues.Err()
	}
	return s.write(ctx, func(tx store.Tx) error {
		return tx.SetSetting(ctx, consoleURLSetting, []byte(strings.TrimSuffix(consoleURL, "/")))
	})
}

// ConsoleURL returns the console's address that serve recorded last, or
// "" if it never ran with a console.
func (s *Service) ConsoleURL(ctx context.Context) (string, error) {
	var v []byte
	err := s.readOne(ctx, func(tx store.Tx) error {
		var err error
		v, err = tx.GetSetting(ctx, consoleURLSetting)
		return err
	})
	if adcamp.ErrorCode(err) == adcamp.CodeNotFound {
		return "", nil
	}
	return string(v), err
}
