package lowpriority

import (
	"testing"

	"golang.org/x/sys/unix"
)

// niceOf is the nice value of thread tid (the raw system call answers
// 20 - nice).
func niceOf(t *testing.T, tid int) int {
	t.Helper()
	p, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		t.Fatal(err)
	}
	return 20 - p
}

func TestDo(t *testing.T) {
	before := niceOf(t, unix.Gettid())
	var inside int
	ran := false
	Do(func() {
		ran = true
		inside = niceOf(t, unix.Gettid())
	})
	if !ran {
		t.Fatal("Do returned without running fn")
	}
	if inside != 19 {
		t.Errorf("nice inside Do = %d, want 19", inside)
	}
	if after := niceOf(t, unix.Gettid()); after != before {
		t.Errorf("nice of the caller's thread after Do = %d, want %d as before", after, before)
	}
}
