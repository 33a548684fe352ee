//go:build !linux

package lowpriority

// lower does nothing where thread priorities are not Linux's.
func lower() {}
