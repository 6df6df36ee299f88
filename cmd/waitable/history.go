package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/waitable/waitable/waiter"
)

// The command's history: the durations of its past waits, by waiter name
// and what was polled, in a bbolt file in the user's state directory
// ($XDG_STATE_HOME/waitable/history.db, else
// ~/.local/state/waitable/history.db), so that a wait run again says how
// long it has left (and, with --learn, polls where the end is likely).
// bbolt is etcd's embedded store, already in the module graph through
// client-go's: one file, transactions, and a file lock that lets
// concurrent waitable processes share it without losing a sample (each
// write waits for the others').

// historyLockWait is how long the command waits, as it exits, for other
// waitable processes to let it write its wait's sample.
const historyLockWait = 10 * time.Second

// defaultHistoryPath is where the history is kept unless --history says
// otherwise: "" if the user has no state directory.
func defaultHistoryPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "waitable", "history.db")
}

// fileHistory is a waiter.History in a bbolt file: Load reads it (a
// missing file is an empty history); Add keeps the sample until save
// writes it, once the wait is over, so that the file's lock never holds
// a wait up.
type fileHistory struct {
	path    string
	mu      sync.Mutex
	pending []pendingSample
}

type pendingSample struct {
	name, key string
	s         waiter.Sample
}

// Load returns the samples of name and key, oldest first, reading the
// file within ctx's deadline.
func (h *fileHistory) Load(ctx context.Context, name, key string) ([]waiter.Sample, error) {
	if _, err := os.Stat(h.path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	timeout := time.Second
	if dl, ok := ctx.Deadline(); ok {
		timeout = max(time.Until(dl), time.Millisecond)
	}
	db, err := bolt.Open(h.path, 0o600, &bolt.Options{Timeout: timeout, ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.path, err)
	}
	defer db.Close()
	var samples []waiter.Sample
	err = db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(name))
		if b == nil {
			return nil
		}
		v := b.Get([]byte(key))
		if v == nil {
			return nil
		}
		if err := json.Unmarshal(v, &samples); err != nil {
			return fmt.Errorf("the samples of %s (%s): %w", name, key, err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.path, err)
	}
	return samples, nil
}

// Add keeps s until save.
func (h *fileHistory) Add(_ context.Context, name, key string, s waiter.Sample) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pending = append(h.pending, pendingSample{name, key, s})
	return nil
}

// save writes the samples added to the file (made with its directory if
// need be), each list cut to the last waiter.HistoryWindow, waiting up to
// historyLockWait for other processes' writes.
func (h *fileHistory) save() error {
	h.mu.Lock()
	pending := h.pending
	h.pending = nil
	h.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return err
	}
	db, err := bolt.Open(h.path, 0o600, &bolt.Options{Timeout: historyLockWait})
	if err != nil {
		return fmt.Errorf("%s: %w", h.path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, p := range pending {
			b, err := tx.CreateBucketIfNotExists([]byte(p.name))
			if err != nil {
				return err
			}
			var samples []waiter.Sample
			if v := b.Get([]byte(p.key)); v != nil {
				if err := json.Unmarshal(v, &samples); err != nil {
					samples = nil // what cannot be read is replaced, not kept
				}
			}
			samples = append(samples, p.s)
			if len(samples) > waiter.HistoryWindow {
				samples = samples[len(samples)-waiter.HistoryWindow:]
			}
			v, err := json.Marshal(samples)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(p.key), v); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", h.path, err)
	}
	return nil
}
