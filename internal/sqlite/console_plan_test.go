package sqlite_test

import (
	"strings"
	"testing"
)

// consolePlanQueries are copies of the statements of console.go that read
// rows (an insert that reads nothing is left out), for
// TestConsoleQueryPlansUseIndexes.
var consolePlanQueries = []struct{ name, query string }{
	{"HasUsers", `SELECT count(*) FROM (SELECT 1 FROM users LIMIT 1)`},
	{"GetUser", `SELECT id, email, password_hash, totp_secret, totp_last_step, created_at FROM users WHERE id = $1`},
	{"GetUserByEmail", `SELECT id, email, password_hash, totp_secret, totp_last_step, created_at FROM users WHERE email = $1`},
	{"UpdateUser", `UPDATE users SET password_hash = $2, totp_secret = $3, totp_last_step = $4 WHERE id = $1`},
	{"GetMember", `SELECT m.account_id, m.role, m.added_at, u.id, u.email, u.password_hash, u.totp_secret, u.totp_last_step, u.created_at
		FROM account_members m JOIN users u ON u.id = m.user_id WHERE m.account_id = $1 AND m.user_id = $2`},
	{"ListMembers", `SELECT m.account_id, m.role, m.added_at, u.id, u.email, u.password_hash, u.totp_secret, u.totp_last_step, u.created_at
		FROM account_members m JOIN users u ON u.id = m.user_id WHERE m.account_id = $1 ORDER BY m.added_at, m.user_id`},
	{"ListMemberships", `SELECT m.account_id, m.role, m.added_at, u.id, u.email, u.password_hash, u.totp_secret, u.totp_last_step, u.created_at
		FROM account_members m JOIN users u ON u.id = m.user_id WHERE m.user_id = $1 ORDER BY m.added_at, m.account_id`},
	{"SetMemberRole", `UPDATE account_members SET role = $3 WHERE account_id = $1 AND user_id = $2`},
	{"DeleteMember", `DELETE FROM account_members WHERE account_id = $1 AND user_id = $2`},
	{"CountOwners", `SELECT count(*) FROM account_members WHERE account_id = $1 AND role = 'owner'`},
	{"GetSession", `SELECT user_id, created_at, last_seen_at FROM console_sessions WHERE hash = $1`},
	{"TouchSession", `UPDATE console_sessions SET last_seen_at = $2 WHERE hash = $1`},
	{"DeleteSession", `DELETE FROM console_sessions WHERE hash = $1`},
	{"DeleteUserSessions", `DELETE FROM console_sessions WHERE user_id = $1 AND hash <> $2`},
	{"PurgeSessions/idle", `DELETE FROM console_sessions WHERE last_seen_at < $1`},
	{"PurgeSessions/old", `DELETE FROM console_sessions WHERE created_at < $1`},
	{"GetToken", `SELECT purpose, user_id, data, created_at, expires_at FROM console_tokens
		WHERE hash = $1 AND purpose = $2 AND expires_at > $3`},
	{"TakeToken", `DELETE FROM console_tokens WHERE hash = $1 AND purpose = $2 AND expires_at > $3
		RETURNING purpose, user_id, data, created_at, expires_at`},
	{"DeleteUserTokens", `DELETE FROM console_tokens WHERE user_id = $1 AND purpose = $2`},
	{"PurgeTokens", `DELETE FROM console_tokens WHERE expires_at <= $1`},
	{"SignInFailures", `SELECT count(*), min(at) FROM signin_failures WHERE key = $1 AND at >= $2`},
	{"ClearSignInFailures", `DELETE FROM signin_failures WHERE key = $1`},
	{"PurgeSignInFailures", `DELETE FROM signin_failures WHERE at < $1`},
	{"SetRecoveryCodes/delete", `DELETE FROM recovery_codes WHERE user_id = $1`},
	{"UseRecoveryCode", `DELETE FROM recovery_codes WHERE user_id = $1 AND hash = $2`},
	{"CountRecoveryCodes", `SELECT count(*) FROM recovery_codes WHERE user_id = $1`},
	{"AddCredentialUses", `INSERT INTO api_key_uses (key_id, day, n)
		SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = $1)
		ON CONFLICT (key_id, day) DO UPDATE SET n = n + excluded.n`},
	{"ListCredentialUses", `SELECT u.key_id, u.day, u.n FROM api_keys k JOIN api_key_uses u ON u.key_id = k.id
		WHERE k.account_id = $1 AND u.day >= $2`},
	{"PurgeCredentialUses", `DELETE FROM api_key_uses WHERE day < $1`},
}

// TestConsoleQueryPlansUseIndexes is TestQueryPlansUseIndexes for the
// console's statements: none reads a whole table.
func TestConsoleQueryPlansUseIndexes(t *testing.T) {
	t.Parallel()
	db := openPlanDB(t)
	for _, q := range consolePlanQueries {
		t.Run(q.name, func(t *testing.T) {
			plan := explain(t, db, q.query)
			if problems := planProblems(plan, false); len(problems) > 0 {
				t.Errorf("%s\nreads without an index: %s. Plan:\n%s", q.query, strings.Join(problems, "; "), formatPlan(plan))
			}
		})
	}
}
