package postgres

import (
	"context"

	"github.com/adcamp/adcamp/internal/store"
)

func (t *tx) GetSetting(ctx context.Context, name string) ([]byte, error) {
	var v []byte
	err := t.tx.QueryRow(ctx, `SELECT value FROM instance_settings WHERE name = $1`, name).Scan(&v)
	if err != nil {
		return nil, notFound(err, "setting", name)
	}
	return v, nil
}

func (t *tx) AddSetting(ctx context.Context, name string, value []byte) (bool, error) {
	tag, err := t.tx.Exec(ctx, `INSERT INTO instance_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, value)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

func (t *tx) SetSetting(ctx context.Context, name string, value []byte) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO instance_settings (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, name, value)
	return err
}

func (t *tx) AllCredentials(ctx context.Context) ([]*store.Credential, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY id`)
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
