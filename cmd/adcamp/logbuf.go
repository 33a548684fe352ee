package main

import (
	"bufio"
	"context"
	"io"
	"sync"
	"time"
)

// bufferedLog batches log lines so that a busy server does not make a
// write system call per request: lines are flushed every interval, when
// the buffer fills, and on Close. At most interval of logs is lost if the
// process is killed.
type bufferedLog struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop context.CancelFunc
	done chan struct{}
}

func newBufferedLog(w io.Writer, interval time.Duration) *bufferedLog {
	ctx, stop := context.WithCancel(context.Background())
	b := &bufferedLog{w: bufio.NewWriterSize(w, 64<<10), stop: stop, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				b.flush()
			}
		}
	}()
	return b
}

func (b *bufferedLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Write(p)
}

// flush writes out what is buffered.
func (b *bufferedLog) flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

// Close stops the flushing loop and flushes once more.
func (b *bufferedLog) Close() error {
	b.stop()
	<-b.done
	return b.flush()
}
