package sqlite

import (
	"context"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

func (t *tx) AddKeyUses(ctx context.Context, uses []store.KeyUse) error {
	keys := map[string]bool{}
	for _, u := range uses {
		// A credential deleted since it was used is skipped.
		_, err := t.exec(ctx, `INSERT INTO api_key_trail (key_id, at, address, route)
			SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = $1)`,
			u.KeyID, micros(u.At), u.Address, u.Route)
		if err != nil {
			return err
		}
		keys[u.KeyID] = true
	}
	for id := range keys {
		_, err := t.exec(ctx, `DELETE FROM api_key_trail WHERE key_id = $1 AND id <=
			(SELECT id FROM api_key_trail WHERE key_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)`,
			id, store.KeyTrailKept)
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) ListKeyUses(ctx context.Context, keyID string) ([]store.KeyUse, error) {
	rows, err := t.query(ctx, `SELECT at, address, route FROM api_key_trail WHERE key_id = $1 ORDER BY id DESC LIMIT $2`,
		keyID, store.KeyTrailKept)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.KeyUse
	for rows.Next() {
		u := store.KeyUse{KeyID: keyID}
		var at int64
		if err := rows.Scan(&at, &u.Address, &u.Route); err != nil {
			return nil, err
		}
		u.At = fromMicros(at)
		out = append(out, u)
	}
	return out, rows.Err()
}

// prefixesText writes address ranges as the allowed_ips column holds them.
func prefixesText(k *adcamp.APIKey) string {
	texts := make([]string, len(k.AllowedIPs))
	for i, p := range k.AllowedIPs {
		texts[i] = p.String()
	}
	return strings.Join(texts, ",")
}

// scanLimits reads the columns of scoped keys into k.
func scanLimits(k *adcamp.APIKey, scopes, ips string) error {
	var err error
	if k.Scopes, err = adcamp.ParseScopes(scopes, adcamp.Scopes{}); err != nil {
		return err
	}
	if ips != "" {
		k.AllowedIPs, err = adcamp.ParsePrefixes([]string{ips})
	}
	return err
}
