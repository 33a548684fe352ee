package sqlite

import (
	"context"
	"errors"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// The account console's tables (migration 00012): see store.ConsoleTx.

// actorOrNil is a credential's creator as read: nil when none was recorded.
func actorOrNil(a adcamp.Actor) *adcamp.Actor {
	if a.Type == "" {
		return nil
	}
	return &a
}

func actorType(a *adcamp.Actor) string {
	if a == nil {
		return ""
	}
	return string(a.Type)
}

func actorID(a *adcamp.Actor) string {
	if a == nil {
		return ""
	}
	return a.ID
}

// isPrimaryKeyViolation recognises a PRIMARY KEY constraint failure by its
// code (a WITHOUT ROWID table reports it so, not as UNIQUE).
func isPrimaryKeyViolation(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

func (t *tx) HasUsers(ctx context.Context) (bool, error) {
	var n int64
	err := t.queryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM users LIMIT 1)`).Scan(&n)
	return n > 0, err
}

const userColumns = `id, email, password_hash, totp_secret, totp_last_step, created_at`

func scanUser(row rowScanner) (*store.User, error) {
	var u store.User
	var created int64
	if err := row.Scan(&u.ID, &u.Email, &u.PasswordHash, &u.TOTPSecret, &u.TOTPLastStep, &created); err != nil {
		return nil, err
	}
	u.CreatedAt = fromMicros(created)
	u.PasswordSet = u.PasswordHash != ""
	u.TwoStep = u.TOTPSecret != nil
	return &u, nil
}

func (t *tx) CreateUser(ctx context.Context, u *store.User) error {
	_, err := t.exec(ctx, `INSERT INTO users (`+userColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`,
		u.ID, u.Email, u.PasswordHash, u.TOTPSecret, u.TOTPLastStep, micros(u.CreatedAt))
	if isUniqueViolation(err) {
		return adcamp.Errorf(adcamp.CodeConflict, "a user with email %q exists already", u.Email)
	}
	return err
}

func (t *tx) GetUser(ctx context.Context, id string) (*store.User, error) {
	u, err := scanUser(t.queryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	if err != nil {
		return nil, notFound(err, "user", id)
	}
	return u, nil
}

func (t *tx) GetUserByEmail(ctx context.Context, email string) (*store.User, error) {
	u, err := scanUser(t.queryRow(ctx, `SELECT `+userColumns+` FROM users WHERE email = $1`, email))
	if err != nil {
		return nil, notFound(err, "user", email)
	}
	return u, nil
}

func (t *tx) UpdateUser(ctx context.Context, u *store.User) error {
	res, err := t.exec(ctx,
		`UPDATE users SET password_hash = $2, totp_secret = $3, totp_last_step = $4 WHERE id = $1`,
		u.ID, u.PasswordHash, u.TOTPSecret, u.TOTPLastStep)
	return affectedOne(res, err, "user", u.ID)
}

func (t *tx) CreateMember(ctx context.Context, m *adcamp.Member) error {
	_, err := t.exec(ctx, `INSERT INTO account_members (account_id, user_id, role, added_at) VALUES ($1, $2, $3, $4)`,
		m.AccountID, m.User.ID, m.Role, micros(m.AddedAt))
	if isPrimaryKeyViolation(err) {
		return adcamp.Errorf(adcamp.CodeConflict, "%s is a member of the account already", m.User.Email)
	}
	return err
}

const memberColumns = `m.account_id, m.role, m.added_at, ` + userColumnsOfU

const userColumnsOfU = `u.id, u.email, u.password_hash, u.totp_secret, u.totp_last_step, u.created_at`

func scanMember(row rowScanner) (*adcamp.Member, error) {
	var m adcamp.Member
	var added, created int64
	var hash string
	var totp []byte
	var step int64
	err := row.Scan(&m.AccountID, &m.Role, &added, &m.User.ID, &m.User.Email, &hash, &totp, &step, &created)
	if err != nil {
		return nil, err
	}
	m.AddedAt, m.User.CreatedAt = fromMicros(added), fromMicros(created)
	m.User.PasswordSet, m.User.TwoStep = hash != "", totp != nil
	return &m, nil
}

func (t *tx) GetMember(ctx context.Context, accountID, userID string) (*adcamp.Member, error) {
	m, err := scanMember(t.queryRow(ctx, `SELECT `+memberColumns+`
		FROM account_members m JOIN users u ON u.id = m.user_id
		WHERE m.account_id = $1 AND m.user_id = $2`, accountID, userID))
	if err != nil {
		return nil, notFound(err, "member", userID)
	}
	return m, nil
}

func (t *tx) ListMembers(ctx context.Context, accountID string) ([]*adcamp.Member, error) {
	return t.members(ctx, `SELECT `+memberColumns+`
		FROM account_members m JOIN users u ON u.id = m.user_id
		WHERE m.account_id = $1 ORDER BY m.added_at, m.user_id`, accountID)
}

func (t *tx) ListMemberships(ctx context.Context, userID string) ([]*adcamp.Member, error) {
	return t.members(ctx, `SELECT `+memberColumns+`
		FROM account_members m JOIN users u ON u.id = m.user_id
		WHERE m.user_id = $1 ORDER BY m.added_at, m.account_id`, userID)
}

func (t *tx) members(ctx context.Context, q string, arg string) ([]*adcamp.Member, error) {
	rows, err := t.query(ctx, q, arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*adcamp.Member
	for rows.Next() {
		m, err := scanMember(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func (t *tx) SetMemberRole(ctx context.Context, accountID, userID string, role adcamp.Role) error {
	res, err := t.exec(ctx, `UPDATE account_members SET role = $3 WHERE account_id = $1 AND user_id = $2`,
		accountID, userID, role)
	return affectedOne(res, err, "member", userID)
}

func (t *tx) DeleteMember(ctx context.Context, accountID, userID string) error {
	res, err := t.exec(ctx, `DELETE FROM account_members WHERE account_id = $1 AND user_id = $2`, accountID, userID)
	return affectedOne(res, err, "member", userID)
}

func (t *tx) CountOwners(ctx context.Context, accountID string) (int64, error) {
	var n int64
	err := t.queryRow(ctx, `SELECT count(*) FROM account_members WHERE account_id = $1 AND role = 'owner'`,
		accountID).Scan(&n)
	return n, err
}

func (t *tx) CreateSession(ctx context.Context, s *store.Session) error {
	_, err := t.exec(ctx, `INSERT INTO console_sessions (hash, user_id, created_at, last_seen_at) VALUES ($1, $2, $3, $4)`,
		s.Hash, s.UserID, micros(s.CreatedAt), micros(s.LastSeenAt))
	return err
}

func (t *tx) GetSession(ctx context.Context, hash []byte) (*store.Session, error) {
	s := store.Session{Hash: hash}
	var created, seen int64
	err := t.queryRow(ctx, `SELECT user_id, created_at, last_seen_at FROM console_sessions WHERE hash = $1`, hash).
		Scan(&s.UserID, &created, &seen)
	if err != nil {
		return nil, notFound(err, "session", "")
	}
	s.CreatedAt, s.LastSeenAt = fromMicros(created), fromMicros(seen)
	return &s, nil
}

func (t *tx) TouchSession(ctx context.Context, hash []byte, at time.Time) error {
	res, err := t.exec(ctx, `UPDATE console_sessions SET last_seen_at = $2 WHERE hash = $1`, hash, micros(at))
	return affectedOne(res, err, "session", "")
}

func (t *tx) DeleteSession(ctx context.Context, hash []byte) error {
	_, err := t.exec(ctx, `DELETE FROM console_sessions WHERE hash = $1`, hash)
	return err
}

func (t *tx) DeleteUserSessions(ctx context.Context, userID string, keep []byte) (int64, error) {
	if keep == nil {
		keep = []byte{}
	}
	res, err := t.exec(ctx, `DELETE FROM console_sessions WHERE user_id = $1 AND hash <> $2`, userID, keep)
	return rowsAffected(res, err)
}

func (t *tx) PurgeSessions(ctx context.Context, idleBefore, createdBefore time.Time) (int64, error) {
	// Two statements, each by its index: SQLite plans an OR of two
	// columns as a scan of the table.
	idle, err := rowsAffected(t.exec(ctx, `DELETE FROM console_sessions WHERE last_seen_at < $1`, micros(idleBefore)))
	if err != nil {
		return 0, err
	}
	old, err := rowsAffected(t.exec(ctx, `DELETE FROM console_sessions WHERE created_at < $1`, micros(createdBefore)))
	return idle + old, err
}

func rowsAffected(res interface{ RowsAffected() (int64, error) }, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t *tx) CreateToken(ctx context.Context, k *store.Token) error {
	_, err := t.exec(ctx, `INSERT INTO console_tokens (hash, purpose, user_id, data, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6)`,
		k.Hash, k.Purpose, nullString(k.UserID), k.Data, micros(k.CreatedAt), micros(k.ExpiresAt))
	return err
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func scanToken(row rowScanner, hash []byte) (*store.Token, error) {
	k := store.Token{Hash: hash}
	var user nullText
	var created, expires int64
	if err := row.Scan(&k.Purpose, &user, &k.Data, &created, &expires); err != nil {
		return nil, notFound(err, "link", "")
	}
	k.UserID, k.CreatedAt, k.ExpiresAt = string(user), fromMicros(created), fromMicros(expires)
	return &k, nil
}

func (t *tx) GetToken(ctx context.Context, hash []byte, purpose store.TokenPurpose, now time.Time) (*store.Token, error) {
	return scanToken(t.queryRow(ctx, `SELECT purpose, user_id, data, created_at, expires_at FROM console_tokens
		WHERE hash = $1 AND purpose = $2 AND expires_at > $3`, hash, purpose, micros(now)), hash)
}

func (t *tx) TakeToken(ctx context.Context, hash []byte, purpose store.TokenPurpose, now time.Time) (*store.Token, error) {
	return scanToken(t.queryRow(ctx, `DELETE FROM console_tokens
		WHERE hash = $1 AND purpose = $2 AND expires_at > $3
		RETURNING purpose, user_id, data, created_at, expires_at`, hash, purpose, micros(now)), hash)
}

func (t *tx) DeleteUserTokens(ctx context.Context, userID string, purpose store.TokenPurpose) error {
	_, err := t.exec(ctx, `DELETE FROM console_tokens WHERE user_id = $1 AND purpose = $2`, userID, purpose)
	return err
}

func (t *tx) PurgeTokens(ctx context.Context, now time.Time) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM console_tokens WHERE expires_at <= $1`, micros(now))
	return rowsAffected(res, err)
}

func (t *tx) AddSignInFailure(ctx context.Context, keys []string, at time.Time) error {
	for _, k := range keys {
		if _, err := t.exec(ctx, `INSERT INTO signin_failures (key, at) VALUES ($1, $2)`, k, micros(at)); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) SignInFailures(ctx context.Context, key string, since time.Time) (int64, time.Time, error) {
	var n int64
	var first nullInt
	err := t.queryRow(ctx, `SELECT count(*), min(at) FROM signin_failures WHERE key = $1 AND at >= $2`,
		key, micros(since)).Scan(&n, &first)
	return n, fromMicros(first.n), err
}

func (t *tx) ClearSignInFailures(ctx context.Context, key string) error {
	_, err := t.exec(ctx, `DELETE FROM signin_failures WHERE key = $1`, key)
	return err
}

func (t *tx) PurgeSignInFailures(ctx context.Context, before time.Time) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM signin_failures WHERE at < $1`, micros(before))
	return rowsAffected(res, err)
}

func (t *tx) SetRecoveryCodes(ctx context.Context, userID string, hashes [][]byte) error {
	if _, err := t.exec(ctx, `DELETE FROM recovery_codes WHERE user_id = $1`, userID); err != nil {
		return err
	}
	for _, h := range hashes {
		if _, err := t.exec(ctx, `INSERT INTO recovery_codes (user_id, hash) VALUES ($1, $2)`, userID, h); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) UseRecoveryCode(ctx context.Context, userID string, hash []byte) error {
	res, err := t.exec(ctx, `DELETE FROM recovery_codes WHERE user_id = $1 AND hash = $2`, userID, hash)
	return affectedOne(res, err, "recovery code", "")
}

func (t *tx) CountRecoveryCodes(ctx context.Context, userID string) (int64, error) {
	var n int64
	err := t.queryRow(ctx, `SELECT count(*) FROM recovery_codes WHERE user_id = $1`, userID).Scan(&n)
	return n, err
}

func (t *tx) AddCredentialUses(ctx context.Context, uses map[store.CredentialDay]int64) error {
	for d, n := range uses {
		// A credential deleted since its requests were counted is
		// skipped. (The WHERE also spares SQLite's parser the ambiguity
		// of a SELECT followed by ON CONFLICT.)
		_, err := t.exec(ctx, `INSERT INTO api_key_uses (key_id, day, n)
			SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = $1)
			ON CONFLICT (key_id, day) DO UPDATE SET n = n + excluded.n`, d.KeyID, d.Day.String(), n)
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) ListCredentialUses(ctx context.Context, accountID string, since adcamp.Date) (map[store.CredentialDay]int64, error) {
	rows, err := t.query(ctx, `SELECT u.key_id, u.day, u.n FROM api_keys k JOIN api_key_uses u ON u.key_id = k.id
		WHERE k.account_id = $1 AND u.day >= $2`, accountID, since.String())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[store.CredentialDay]int64)
	for rows.Next() {
		var id, day string
		var n int64
		if err := rows.Scan(&id, &day, &n); err != nil {
			return nil, err
		}
		d, err := adcamp.ParseDate(day)
		if err != nil {
			return nil, err
		}
		out[store.CredentialDay{KeyID: id, Day: d}] = n
	}
	return out, rows.Err()
}

func (t *tx) PurgeCredentialUses(ctx context.Context, before adcamp.Date) (int64, error) {
	res, err := t.exec(ctx, `DELETE FROM api_key_uses WHERE day < $1`, before.String())
	return rowsAffected(res, err)
}
