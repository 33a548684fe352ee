package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/adcamp/adcamp/internal/postgres"
	"github.com/adcamp/adcamp/internal/sqlite"
	"github.com/adcamp/adcamp/internal/store"
)

// migrateCmd runs adcamp migrate: with --dry-run it prints the pending
// migrations and what each locks, changing nothing; without, it applies
// them as serve would at start (on SQLite, after a backup of the
// database), for an operator who migrates as a step of its own.
func (c *cli) migrateCmd(ctx context.Context, args []string) error {
	fs := c.newFlags("migrate")
	sf := c.storeFlags(fs)
	dryRun := fs.Bool("dry-run", false, "print the pending migrations and what each locks; change nothing")
	asJSON := fs.Bool("json", false, "print the schema's version and the pending migrations as JSON")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError("migrate takes no arguments")
	}
	before, rule, err := c.plan(ctx, sf)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if *dryRun {
		if err := before.Check(); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		return c.printPlan(before, rule, *asJSON)
	}
	db, _, err := c.open(ctx, sf)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer db.Close()
	after, err := db.(store.SchemaReporter).Schema(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(c.stdout).Encode(map[string]int64{"from": before.Current, "schema_version": after.Current})
	}
	if after.Current == before.Current {
		fmt.Fprintf(c.stdout, "nothing to migrate: %s is at schema %05d, this adcamp's latest\n", c.where(sf), after.Current)
		return nil
	}
	fmt.Fprintf(c.stdout, "migrated %s from schema %05d to %05d\n", c.where(sf), before.Current, after.Current)
	return nil
}

// plan reads where the schema of sf's database stands, and the rule its
// store's migrations lock by.
func (c *cli) plan(ctx context.Context, sf *storeFlags) (store.Schema, string, error) {
	if sf.databaseURL != "" {
		s, err := postgres.Plan(ctx, sf.databaseURL)
		if err != nil {
			err = fmt.Errorf("%s: %w", redact(sf.databaseURL), err)
		}
		return s, postgres.LockRule, err
	}
	s, err := sqlite.Plan(ctx, sf.dataDir)
	rule := sqlite.LockRule
	if s.Current > 0 {
		rule += "\nBefore the first migration runs, the database is backed up in its data directory " +
			"(pre-migration-VERSION-TIME.tar)."
	}
	return s, rule, err
}

// where names sf's database, for messages.
func (c *cli) where(sf *storeFlags) string {
	if sf.databaseURL != "" {
		return redact(sf.databaseURL)
	}
	return filepath.Join(sf.dataDir, sqlite.FileName)
}

// printPlan prints what migrate would do.
func (c *cli) printPlan(s store.Schema, rule string, asJSON bool) error {
	if asJSON {
		type pending struct {
			Version int64  `json:"version"`
			Source  string `json:"source,omitempty"`
			Locks   string `json:"locks"`
		}
		out := struct {
			SchemaVersion int64     `json:"schema_version"`
			Latest        int64     `json:"latest"`
			Pending       []pending `json:"pending"`
		}{s.Current, s.Latest, []pending{}}
		for _, m := range s.Pending {
			out.Pending = append(out.Pending, pending{m.Version, m.Source, m.Locks})
		}
		return json.NewEncoder(c.stdout).Encode(out)
	}
	if len(s.Pending) == 0 {
		fmt.Fprintf(c.stdout, "nothing to migrate: the schema is at %05d, this adcamp's latest\n", s.Current)
		return nil
	}
	migrations := "migrations"
	if len(s.Pending) == 1 {
		migrations = "migration"
	}
	fmt.Fprintf(c.stdout, "the schema is at %05d; %d %s would bring it to %05d:\n\n", s.Current, len(s.Pending), migrations, s.Latest)
	for _, m := range s.Pending {
		source := m.Source
		if source == "" {
			source = "(written in Go)"
		}
		fmt.Fprintf(c.stdout, "  %05d  %s\n         locks: %s\n", m.Version, source, wrap(m.Locks, 80, "                "))
	}
	fmt.Fprintln(c.stdout)
	for _, para := range strings.Split(rule, "\n") {
		fmt.Fprintln(c.stdout, wrap(para, 100, ""))
	}
	return nil
}

// wrap folds text into lines of at most width runes, the ones after the
// first indented by indent.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(text) {
		if i > 0 && line+1+len(word) > width-len(indent) {
			b.WriteString("\n" + indent)
			line = 0
		} else if i > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}
