package adcamp

import "time"

// Role is what a member of an account may do in the console. The rules
// that follow from a role are the service's; this is only the vocabulary.
type Role string

// The roles, from the most to the least trusted.
const (
	// RoleOwner may do everything: members, and the credentials of both
	// environments.
	RoleOwner Role = "owner"
	// RoleDeveloper manages the sandbox's credentials (and, with the
	// console's campaign pages, its campaigns) and reads the rest.
	RoleDeveloper Role = "developer"
	// RoleViewer reads and changes nothing.
	RoleViewer Role = "viewer"
)

// Roles lists the roles, most trusted first.
var Roles = []Role{RoleOwner, RoleDeveloper, RoleViewer}

// ParseRole accepts the name of a role.
func ParseRole(s string) (Role, bool) {
	switch r := Role(s); r {
	case RoleOwner, RoleDeveloper, RoleViewer:
		return r, true
	}
	return "", false
}

// User is a person who signs in to the account console, by email and
// password. A user may be a member of several accounts.
type User struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	CreatedAt time.Time `json:"created_at"`
	// PasswordSet is false for a user invited who has not yet chosen a
	// password (and so cannot sign in).
	PasswordSet bool `json:"password_set"`
	// TwoStep is true when signing in also asks for a code of an
	// authenticator app (TOTP).
	TwoStep bool `json:"two_step"`
}

// Member is a user's place in an account: the role they have there.
type Member struct {
	AccountID string    `json:"account_id"`
	User      User      `json:"user"`
	Role      Role      `json:"role"`
	AddedAt   time.Time `json:"added_at"`
}

// CodeForbidden refuses what the caller's role does not allow. Only the
// console, whose users have roles, answers with it: an API key may do
// everything in its environment.
const CodeForbidden Code = "FORBIDDEN"
