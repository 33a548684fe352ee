package postgres

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// row is what pgx.Row and pgx.Rows have in common.
type row interface{ Scan(...any) error }

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func nullMicros(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	us := t.UnixMicro()
	return &us
}

func fromNullMicros(us *int64) *time.Time {
	if us == nil {
		return nil
	}
	t := fromMicros(*us)
	return &t
}

// notFound turns pgx.ErrNoRows into the domain's NOT_FOUND.
func notFound(err error, kind, id string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return adcamp.NotFound(kind, id)
	}
	return err
}

// affectedOne turns an UPDATE or DELETE that touched no row into NOT_FOUND.
func affectedOne(tag pgconn.CommandTag, err error, kind, id string) error {
	if err == nil && tag.RowsAffected() == 0 {
		return adcamp.NotFound(kind, id)
	}
	return err
}

// affectedVersion turns a versioned UPDATE that touched no row into
// PRECONDITION_FAILED: another request changed the row since it was read.
func affectedVersion(tag pgconn.CommandTag, err error, kind, id string) error {
	if err == nil && tag.RowsAffected() != 1 {
		return adcamp.Errorf(adcamp.CodePreconditionFailed, "%s %q was changed by another request", kind, id)
	}
	return err
}

func (t *tx) CreateAccount(ctx context.Context, a *adcamp.Account) error {
	if a.TimeZone == "" {
		a.TimeZone = "UTC"
	}
	if a.TimeZone == "UTC" {
		// The column's default, left to it: the INSERT then also works on
		// a schema from before 00021 (as tests of upgrades make one).
		_, err := t.tx.Exec(ctx,
			`INSERT INTO accounts (id, name, email, created_at) VALUES ($1, $2, $3, $4)`,
			a.ID, a.Name, a.Email, micros(a.CreatedAt))
		return err
	}
	_, err := t.tx.Exec(ctx,
		`INSERT INTO accounts (id, name, email, created_at, time_zone) VALUES ($1, $2, $3, $4, $5)`,
		a.ID, a.Name, a.Email, micros(a.CreatedAt), a.TimeZone)
	return err
}

func (t *tx) GetAccount(ctx context.Context, id string) (*adcamp.Account, error) {
	var a adcamp.Account
	var created int64
	err := t.tx.QueryRow(ctx, `SELECT id, name, email, created_at, time_zone FROM accounts WHERE id = $1`, id).
		Scan(&a.ID, &a.Name, &a.Email, &created, &a.TimeZone)
	if err != nil {
		return nil, notFound(err, "account", id)
	}
	a.CreatedAt = fromMicros(created)
	return &a, nil
}

func (t *tx) CreateChannelAccount(ctx context.Context, c *adcamp.ChannelAccount) error {
	return t.tx.QueryRow(ctx,
		`INSERT INTO channel_accounts (account_id, marketplace, name, created_at)
		 VALUES ($1, $2, $3, $4) RETURNING id`,
		c.AccountID, c.Marketplace, c.Name, micros(c.CreatedAt)).Scan(&c.ID)
}

func (t *tx) GetChannelAccount(ctx context.Context, accountID string, id int64) (*adcamp.ChannelAccount, error) {
	c := adcamp.ChannelAccount{ID: id, AccountID: accountID}
	var created int64
	err := t.tx.QueryRow(ctx,
		`SELECT marketplace, name, created_at FROM channel_accounts WHERE account_id = $1 AND id = $2`,
		accountID, id).Scan(&c.Marketplace, &c.Name, &created)
	if err != nil {
		return nil, notFound(err, "channel account", strconv.FormatInt(id, 10))
	}
	c.CreatedAt = fromMicros(created)
	return &c, nil
}

func scanChannelAccount(r row) (*adcamp.ChannelAccount, error) {
	var c adcamp.ChannelAccount
	var created int64
	if err := r.Scan(&c.ID, &c.AccountID, &c.Marketplace, &c.Name, &created); err != nil {
		return nil, err
	}
	c.CreatedAt = fromMicros(created)
	return &c, nil
}

func (t *tx) ListChannelAccounts(ctx context.Context, accountID string, q store.ListQuery) ([]*adcamp.ChannelAccount, int64, error) {
	// An account has few channel accounts: they are counted.
	return listPage(ctx, t, `SELECT count(*) FROM channel_accounts WHERE account_id = $1`,
		"channel_accounts", `id, account_id, marketplace, name, created_at`, `account_id = $1`, []any{accountID}, q,
		scanChannelAccount)
}

const keyColumns = `id, account_id, environment, secret, previous_secret, previous_expires_at, disabled, created_at, last_used_at,
	name, created_by_type, created_by_id, scopes, expires_at, allowed_ips, rate_limit`

func scanKey(r row) (*store.Credential, error) {
	var k store.Credential
	var created int64
	var prevExp, lastUsed, expires *int64
	var by adcamp.Actor
	var scopes, ips string
	err := r.Scan(&k.ID, &k.AccountID, &k.Environment, &k.Secret, &k.PreviousSecret,
		&prevExp, &k.Disabled, &created, &lastUsed, &k.Name, &by.Type, &by.ID, &scopes, &expires, &ips, &k.RateLimit)
	if err != nil {
		return nil, err
	}
	if err := scanLimits(&k.APIKey, scopes, ips); err != nil {
		return nil, err
	}
	k.ExpiresAt = fromNullMicros(expires)
	k.CreatedBy = actorOrNil(by)
	k.CreatedAt = fromMicros(created)
	k.PreviousExpiresAt = fromNullMicros(prevExp)
	k.LastUsedAt = fromNullMicros(lastUsed)
	return &k, nil
}

func (t *tx) CreateCredential(ctx context.Context, k *store.Credential) error {
	_, err := t.tx.Exec(ctx,
		`INSERT INTO api_keys (`+keyColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		k.ID, k.AccountID, string(k.Environment), k.Secret, k.PreviousSecret,
		nullMicros(k.PreviousExpiresAt), k.Disabled, micros(k.CreatedAt), nullMicros(k.LastUsedAt),
		k.Name, actorType(k.CreatedBy), actorID(k.CreatedBy),
		k.Scopes.String(), nullMicros(k.ExpiresAt), prefixesText(&k.APIKey), k.RateLimit)
	return err
}

func (t *tx) GetCredential(ctx context.Context, id string) (*store.Credential, error) {
	k, err := scanKey(t.tx.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = $1`, id))
	if err != nil {
		return nil, notFound(err, "API key", id)
	}
	return k, nil
}

func (t *tx) ListCredentials(ctx context.Context, accountID string) ([]*store.Credential, error) {
	rows, err := t.tx.Query(ctx,
		`SELECT `+keyColumns+` FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []*store.Credential
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

func (t *tx) UpdateCredential(ctx context.Context, k *store.Credential) error {
	tag, err := t.tx.Exec(ctx,
		`UPDATE api_keys SET secret = $2, previous_secret = $3, previous_expires_at = $4, disabled = $5,
		 scopes = $6, expires_at = $7, allowed_ips = $8, rate_limit = $9
		 WHERE id = $1`,
		k.ID, k.Secret, k.PreviousSecret, nullMicros(k.PreviousExpiresAt), k.Disabled,
		k.Scopes.String(), nullMicros(k.ExpiresAt), prefixesText(&k.APIKey), k.RateLimit)
	return affectedOne(tag, err, "API key", k.ID)
}

func (t *tx) DeleteCredential(ctx context.Context, id string) error {
	tag, err := t.tx.Exec(ctx, `DELETE FROM api_keys WHERE id = $1`, id)
	return affectedOne(tag, err, "API key", id)
}

// TouchCredentials writes every last use in one statement. Two processes that
// touch the same keys at once may deadlock: Write runs the loser again.
func (t *tx) TouchCredentials(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	ids := make([]string, 0, len(used))
	for id := range used {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	ats := make([]int64, len(ids))
	for i, id := range ids {
		ats[i] = micros(used[id])
	}
	_, err := t.tx.Exec(ctx,
		`UPDATE api_keys k SET last_used_at = u.at
		 FROM unnest($1::text[], $2::bigint[]) AS u (id, at)
		 WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
		ids, ats)
	return err
}
