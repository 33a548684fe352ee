package store

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
)

// Migration is one version of a store's schema, as this binary carries it.
type Migration struct {
	Version int64
	// Source is the file the migration comes from
	// ("00014_campaign_notes.sql"); a migration written in Go has none.
	Source string
	// Locks says what the migration locks while it runs, and for how long:
	// the "-- Locks:" header of its file (see LocksHeader).
	Locks string
}

// Schema is where a database's schema stands against the migrations this
// binary carries.
type Schema struct {
	Current int64       // the highest version applied; 0 for a new database
	Latest  int64       // the highest version this binary carries
	Pending []Migration // what opening the database would apply, in order
}

// NewSchema compares the versions applied to a database with the
// migrations a binary carries (in order of version).
func NewSchema(all []Migration, applied []int64) Schema {
	s := Schema{}
	if len(all) > 0 {
		s.Latest = all[len(all)-1].Version
	}
	for _, v := range applied {
		s.Current = max(s.Current, v)
	}
	for _, m := range all {
		if !slices.Contains(applied, m.Version) {
			s.Pending = append(s.Pending, m)
		}
	}
	return s
}

// Check refuses a database that a newer adcamp has migrated: this binary
// does not know its tables, and would fail later, on some request, in
// ways harder to read than this.
func (s Schema) Check() error {
	if s.Current > s.Latest {
		return &SchemaTooNewError{Current: s.Current, Latest: s.Latest}
	}
	return nil
}

// SchemaTooNewError is the error of opening a database whose schema is
// newer than the binary's.
type SchemaTooNewError struct {
	Current, Latest int64
}

func (e *SchemaTooNewError) Error() string {
	return fmt.Sprintf("the database's schema is at version %05d, newer than this adcamp knows (up to %05d): "+
		"a newer adcamp has migrated it. Run that version or a later one, or restore the backup taken "+
		"before the upgrade (docs/operations.md, \"Upgrades\")", e.Current, e.Latest)
}

// SchemaReporter is a Store that can say where its database's schema
// stands (for readiness: a process whose schema is not the database's
// should not be sent requests).
type SchemaReporter interface {
	Schema(ctx context.Context) (Schema, error)
}

// LocksHeader returns the "-- Locks:" header of a migration file: the
// text after it, with the comment lines that continue it (indented by two
// spaces or more after the "--"), joined on single spaces. It returns ""
// when the file has none.
func LocksHeader(sql []byte) string {
	var parts []string
	sc := bufio.NewScanner(bytes.NewReader(sql))
	for sc.Scan() {
		line := sc.Text()
		if parts == nil {
			if rest, ok := strings.CutPrefix(line, "-- Locks:"); ok {
				parts = append(parts, strings.TrimSpace(rest))
			}
			continue
		}
		rest, ok := strings.CutPrefix(line, "--  ")
		if !ok || strings.TrimSpace(rest) == "" {
			break
		}
		parts = append(parts, strings.TrimSpace(rest))
	}
	return strings.Join(parts, " ")
}
