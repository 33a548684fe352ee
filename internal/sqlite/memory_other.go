//go:build !linux

package sqlite

// physicalMemory returns the machine's memory in bytes, 0 if unknown.
func physicalMemory() int64 { return 0 }
