package backup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Format names the layout of a backup file, which a restore checks
// before it reads anything else.
const Format = "adcamp-sqlite-backup/1"

// Manifest says what a backup holds. It is the backup file's first
// member, manifest.json.
type Manifest struct {
	Format        string    `json:"format"`
	CreatedAt     time.Time `json:"created_at"`     // when the copy began, UTC
	AdcampVersion string    `json:"adcamp_version"` // of the adcamp that took it
	SchemaVersion int64     `json:"schema_version"` // the database's, as goose recorded it
	// Database is the member holding the database, Size its bytes and
	// SHA256 their hash (hex).
	Database string `json:"database"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
	// Tables counts the rows of each table.
	Tables map[string]int64 `json:"tables"`
}

// Rows is the number of rows in all tables.
func (m *Manifest) Rows() int64 {
	var n int64
	for _, c := range m.Tables {
		n += c
	}
	return n
}

// maxManifest bounds the manifest a restore reads.
const maxManifest = 1 << 20

// readManifest decodes the manifest member r, of size bytes.
func readManifest(r io.Reader, size int64) (*Manifest, error) {
	if size > maxManifest {
		return nil, fmt.Errorf("its manifest is %d bytes, more than a manifest can be", size)
	}
	var m Manifest
	dec := json.NewDecoder(io.LimitReader(r, maxManifest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("its manifest cannot be read: %w", err)
	}
	switch {
	case m.Format != Format:
		return nil, fmt.Errorf("its manifest is of format %q; this adcamp reads %q", m.Format, Format)
	case m.Database != databaseName || m.Size <= 0 || len(m.SHA256) != 64 || m.SchemaVersion <= 0:
		return nil, fmt.Errorf("its manifest is incomplete (database %q, %d bytes, SHA-256 %q, schema %d)",
			m.Database, m.Size, m.SHA256, m.SchemaVersion)
	}
	return &m, nil
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
