package service

import (
	"context"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// Ready says whether this process should be sent requests: the database
// answers, its schema is the one this binary carries (another process,
// a newer adcamp, may have migrated it since this one started), and the
// master key opens the database's secrets. Its error is an *adcamp.Error,
// SERVICE_UNAVAILABLE, whose message says which check failed; the cause
// goes to the log.
func (s *core) Ready(ctx context.Context) error {
	if err := s.store.Ping(ctx); err != nil {
		s.log.Warn("not ready: the database does not answer", "err", err)
		return unavailable("the database is not reachable")
	}
	if r, ok := s.store.(store.SchemaReporter); ok {
		sc, err := r.Schema(ctx)
		switch {
		case err != nil:
			s.log.Warn("not ready: the database's schema version cannot be read", "err", err)
			return unavailable("the database's schema version cannot be read")
		case sc.Current < sc.Latest:
			return unavailable("the database's schema is at version %05d and this adcamp's at %05d: migrations are pending",
				sc.Current, sc.Latest)
		case sc.Current > sc.Latest:
			return unavailable("the database's schema is at version %05d, newer than this adcamp's %05d: a newer adcamp migrated it",
				sc.Current, sc.Latest)
		}
	}
	return s.checkMasterKey(ctx)
}

// checkMasterKey opens the canary (see CheckSecrets) without writing
// anything: a database without one yet has nothing to check.
func (s *core) checkMasterKey(ctx context.Context) error {
	if s.box == nil {
		return unavailable("no master key is loaded")
	}
	var canary []byte
	err := s.store.ReadOne(ctx, func(tx store.Tx) error {
		var err error
		canary, err = tx.GetSetting(ctx, canaryName)
		return err
	})
	switch {
	case adcamp.ErrorCode(err) == adcamp.CodeNotFound:
		return nil
	case err != nil:
		s.log.Warn("not ready: the master key's canary cannot be read", "err", err)
		return unavailable("the database is not reachable")
	}
	if _, err := s.box.Open(canary, []byte(canaryAD)); err != nil {
		return unavailable("the master key does not open the database's secrets")
	}
	return nil
}

func unavailable(format string, args ...any) error {
	return adcamp.Errorf(adcamp.CodeUnavailable, format, args...)
}
