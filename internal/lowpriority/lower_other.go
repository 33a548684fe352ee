//go:build !linux

package lowpriority

// lower does nothing where thread priorities are not Linux's.
func lower() {}

// IdleIO does nothing where I/O priorities are not Linux's.
func IdleIO() {}
