package postgres

import (
	"context"
	"strings"

	"github.com/adcamp/adcamp"
	"github.com/adcamp/adcamp/internal/store"
)

// AddKeyUses writes the uses in one statement and trims every trail they
// touched in another.
func (t *tx) AddKeyUses(ctx context.Context, uses []store.KeyUse) error {
	if len(uses) == 0 {
		return nil
	}
	ids, ats := make([]string, len(uses)), make([]int64, len(uses))
	addrs, routes := make([]string, len(uses)), make([]string, len(uses))
	for i, u := range uses {
		ids[i], ats[i], addrs[i], routes[i] = u.KeyID, micros(u.At), u.Address, u.Route
	}
	// A credential deleted since it was used is skipped by the join;
	// WITH ORDINALITY keeps the uses in their order.
	_, err := t.tx.Exec(ctx, `INSERT INTO api_key_trail (key_id, at, address, route)
		SELECT u.key_id, u.at, u.address, u.route
		FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) WITH ORDINALITY AS u (key_id, at, address, route, n)
		JOIN api_keys k ON k.id = u.key_id
		ORDER BY u.n`, ids, ats, addrs, routes)
	if err != nil {
		return err
	}
	_, err = t.tx.Exec(ctx, `DELETE FROM api_key_trail d USING (
			SELECT id FROM (
				SELECT id, row_number() OVER (PARTITION BY key_id ORDER BY id DESC) AS r
				FROM api_key_trail WHERE key_id = ANY($1::text[])) x
			WHERE x.r > $2) old
		WHERE d.id = old.id`, ids, store.KeyTrailKept)
	return err
}

func (t *tx) ListKeyUses(ctx context.Context, keyID string) ([]store.KeyUse, error) {
	rows, err := t.tx.Query(ctx, `SELECT at, address, route FROM api_key_trail WHERE key_id = $1 ORDER BY id DESC LIMIT $2`,
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
