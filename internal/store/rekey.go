package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/adcamp/adcamp"
)

// KeywordCollision is a keyword whose text, under a new
// adcamp.KeywordKey, reads like an older keyword's of the same ad group
// and match type.
type KeywordCollision struct {
	KeywordID string // the newer keyword, kept apart
	SameAs    string // the older one, which keeps the key
	AdGroupID string
	MatchType adcamp.MatchType
	Text      string
}

func (c KeywordCollision) String() string {
	return fmt.Sprintf("keyword %s (%q, %s) of ad group %s now reads like keyword %s: both are kept; "+
		"delete or rename one (until then %s cannot be changed but by a new text)",
		c.KeywordID, c.Text, c.MatchType, c.AdGroupID, c.SameAs, c.KeywordID)
}

// collisionMark separates a keyword's key from its id in the key of a
// collision: a control character, which no keyword text may hold, so the
// key of no text can ever equal it.
const collisionMark = "\x01"

// RekeyKeywords sets the text_key of every keyword to adcamp.KeywordKey of
// its text, where it differs: migration 00010 of both stores, run in the
// migration's transaction (placeholders $1, $2 suit both databases).
//
// Where two keywords of an ad group and match type come to share a key,
// nothing is dropped: the oldest keeps the key, each newer one gets a key
// of its own (the key, collisionMark, its id), and each is returned, for
// the operator to resolve. Keys are changed in two passes, through
// temporary keys, so that no row meets another's old key on the way.
func RekeyKeywords(ctx context.Context, tx *sql.Tx) ([]KeywordCollision, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, ad_group_id, match_type, text, text_key FROM keywords
		ORDER BY ad_group_id, match_type, created_at, id`)
	if err != nil {
		return nil, err
	}
	type change struct{ id, key string }
	var changes []change
	var collisions []KeywordCollision
	var group struct{ adGroup, matchType string }
	owner := map[string]string{} // key -> id of the oldest keyword with it, in the group
	for rows.Next() {
		var id, adGroup, matchType, text, oldKey string
		if err := rows.Scan(&id, &adGroup, &matchType, &text, &oldKey); err != nil {
			rows.Close()
			return nil, err
		}
		if adGroup != group.adGroup || matchType != group.matchType {
			group.adGroup, group.matchType = adGroup, matchType
			clear(owner)
		}
		key := adcamp.KeywordKey(text)
		if first, taken := owner[key]; taken {
			collisions = append(collisions, KeywordCollision{KeywordID: id, SameAs: first, AdGroupID: adGroup,
				MatchType: adcamp.MatchType(matchType), Text: text})
			key += collisionMark + id
		} else {
			owner[key] = id
		}
		if key != oldKey {
			changes = append(changes, change{id, key})
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, err
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	for pass := range 2 {
		for _, c := range changes {
			key := c.key
			if pass == 0 {
				key = collisionMark + "rekey" + collisionMark + c.id
			}
			if _, err := tx.ExecContext(ctx, `UPDATE keywords SET text_key = $1 WHERE id = $2`, key, c.id); err != nil {
				return nil, fmt.Errorf("rekey keyword %s: %w", c.id, err)
			}
		}
	}
	return collisions, nil
}

// Noticer is a store with something to tell the operator once it is
// open: what a migration found that needs a person's decision.
type Noticer interface {
	Notices() []string
}
