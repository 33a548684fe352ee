package store

import "time"

// PoolStats describes one connection pool of a store, for metrics.
type PoolStats struct {
	Name         string // e.g. "write", "read"
	MaxOpen      int
	Open         int
	InUse        int
	Idle         int
	WaitCount    int64
	WaitDuration time.Duration
}

// StatsReporter is implemented by stores that can describe their pools.
type StatsReporter interface {
	PoolStats() []PoolStats
}
