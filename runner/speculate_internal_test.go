package runner

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestPoolSpeculateQueue: guesses wait behind every job submitted, before
// and after them; a guess submitted later becomes a job like the others
// (Guessed counts it); each call replaces the guesses waiting, keeping at
// most n, the first ones; half the builders at most build guesses; a
// guess already in the cache is not queued, and a guess built is
// forgotten but for the cache, where a submit finds it (Guessed again).
// Without a cache, or with one builder, nothing is guessed.
func TestPoolSpeculateQueue(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	newPool := func(cache *Cache) *pool {
		p := &pool{n: 4, cache: cache, devKey: "dev", jobs: map[string]*buildJob{}, keys: map[string]*buildJob{},
			children: map[*child]bool{}, building: map[*buildJob]time.Time{}}
		p.cond = sync.NewCond(&p.mu)
		return p
	}
	v := func(name string) Variant { return Variant{KernelName: "k", Source: "/* " + name + " */"} }
	vs := func(names ...string) []Variant {
		var out []Variant
		for _, n := range names {
			out = append(out, v(n))
		}
		return out
	}
	names := func(p *pool) []string {
		var out []string
		for _, j := range p.queue {
			s := j.v.Source[3 : len(j.v.Source)-3]
			if j.guess {
				s += "?"
			}
			out = append(out, s)
		}
		return out
	}
	p := newPool(c)
	p.speculate(vs("g1", "g2"))
	p.submit(v("a"), false)
	p.submit(v("b"), false)
	p.submit(v("c"), true)
	if want := []string{"c", "a", "b", "g1?", "g2?"}; !slices.Equal(names(p), want) {
		t.Errorf("queue %v, want %v", names(p), want)
	}
	p.submit(v("g2"), false)
	if want := []string{"c", "a", "b", "g2", "g1?"}; !slices.Equal(names(p), want) || p.stats.Guessed != 1 {
		t.Errorf("after g2 was submitted: queue %v, Guessed %d; want %v, 1", names(p), p.stats.Guessed, want)
	}
	// Replaced, at most n kept; a job submitted is not guessed again.
	p.speculate(vs("a", "g1", "g3", "g4", "g5", "g6", "g7"))
	if want := []string{"c", "a", "b", "g2", "g1?", "g3?", "g4?", "g5?"}; !slices.Equal(names(p), want) || p.stats.Guesses != 5 {
		t.Errorf("after the next guesses: queue %v, Guesses %d; want %v, 5", names(p), p.stats.Guesses, want)
	}
	for i := 6; i <= 7; i++ {
		if p.jobs[p.keyLocked(v(fmt.Sprintf("g%d", i)))] != nil {
			t.Errorf("g%d, past n, is a job", i)
		}
	}
	p.speculate(vs("g6"))
	if want := []string{"c", "a", "b", "g2", "g6?"}; !slices.Equal(names(p), want) || p.jobs[p.keyLocked(v("g1"))] != nil {
		t.Errorf("after one guess: queue %v, want %v, g1 forgotten", names(p), want)
	}
	// Half the builders at most on guesses.
	p.queue = p.queue[4:]
	for _, guessing := range []int{0, 1, 2} {
		p.guessing = guessing
		if got, want := p.takeableLocked(), guessing < 2; got != want {
			t.Errorf("%d builders building guesses: takeable %v, want %v", guessing, got, want)
		}
	}
	// A guess built: forgotten, in the cache, found there by a submit.
	g6 := p.queue[0]
	p.queue = p.queue[1:]
	c.put(g6.key, []byte("binary"), false)
	p.finish(g6, []byte("binary"), nil)
	if p.jobs[g6.key] != nil {
		t.Error("a guess built is still a job")
	}
	p.speculate(vs("g6"))
	if len(p.queue) != 0 {
		t.Errorf("a guess in the cache was queued again: %v", names(p))
	}
	if j := p.submit(v("g6"), false); j.bin == nil || p.stats.CacheHits != 1 || p.stats.Guessed != 2 {
		t.Errorf("the guess built, submitted: binary %q, CacheHits %d, Guessed %d; want the cache's binary, 1, 2", j.bin, p.stats.CacheHits, p.stats.Guessed)
	}
	q := newPool(nil)
	q.speculate(vs("g"))
	if len(q.queue) != 0 || q.stats.Guesses != 0 {
		t.Error("a pool without a cache queued a guess")
	}
	one := newPool(c)
	one.n = 1
	one.speculate(vs("g"))
	if len(one.queue) != 0 || one.stats.Guesses != 0 {
		t.Error("a pool of one builder queued a guess")
	}
}
