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

// ioClassOf is the I/O priority class of thread tid.
func ioClassOf(t *testing.T, tid int) uintptr {
	t.Helper()
	p, _, errno := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(tid), 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	return p >> ioprioClassShift
}

func TestIdleIO(t *testing.T) {
	before := ioClassOf(t, unix.Gettid())
	var lowered, idle uintptr
	Do(func() {
		lowered = ioClassOf(t, unix.Gettid())
		IdleIO()
		idle = ioClassOf(t, unix.Gettid())
	})
	if lowered != ioprioClassBestEffort || idle != ioprioClassIdle {
		t.Errorf("I/O class inside Do = %d, then after IdleIO %d; want %d, then %d", lowered, idle, ioprioClassBestEffort, ioprioClassIdle)
	}
	if after := ioClassOf(t, unix.Gettid()); after != before {
		t.Errorf("I/O class of the caller's thread after Do = %d, want %d as before", after, before)
	}
}

func TestUsual(t *testing.T) {
	before := niceOf(t, unix.Gettid())
	var inside, usual int
	Do(func() {
		inside = niceOf(t, unix.Gettid())
		Usual(func() { usual = niceOf(t, unix.Gettid()) })
	})
	if inside != 19 || usual != before {
		t.Errorf("nice inside Do = %d, inside Usual = %d; want 19, then %d as outside", inside, usual, before)
	}
}
