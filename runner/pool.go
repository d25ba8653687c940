package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// The build pool: a Worker's builders are child processes in the builder
// role (server.go's serveBuilder), the same executable as the measuring
// worker, each with its own OpenCL context on the device. They build the
// variants the Worker is asked to prepare, in the order asked, one at a
// time each, and answer the program's binary, from which the measuring
// worker makes the program (Session.PrepareBinary) without compiling.
// Processes, not threads: NVIDIA's OpenCL compiler serializes the builds of
// a process (measured on the H100 host, building distinct 128x128-tile
// MATMUL variants: 8 threads of one process 1.7x faster than one, 16
// processes 8.4x).
//
// On a device that compiles at launch (PoCL), a builder also launches one
// work-group of the variant, so that the code of its work-group size is
// made in the builder and carried by the binary, or, with a Cache, left in
// PoCL's kernel cache, which the processes then share (taking PoCL's binary
// costs another compilation): the measuring worker's first launch then
// costs what its next ones do, and a variant's time limit stops paying for
// the compiler.
//
// A builder that dies while it builds is replaced and the build is tried
// once more in the new one; dying again, or passing the build limit (then
// it is killed), makes the variant a Compile failure with the reason. On
// PoCL the build includes the compilation of the first launch, which the
// builder watches (the launch's event turns to running once its code is
// made). A
// builder whose build has run three times longer than the usual build (at
// least 2 s) no longer counts among the pool's builders: another is started
// beside it (up to the pool's size plus the larger of that and 2), so that
// one hung build holds up nothing but its own variant. A builder that dies or hangs after the build
// ended (in the first launch, or while taking the binary) costs its variant
// nothing: the measuring worker builds that one from source.
//
// With a Cache, a variant whose binary (or whose compiler rejection) is in
// the cache is not built at all, and every binary built is stored there.

// builderNice is how much a builder lowers its CPU priority (raises its
// nice value), before it opens the device: the builders keep every core
// the measuring worker and the tuning process leave, but these two, which
// wait for each other at every measurement, do not wait for a core behind
// a compiler. With as many busy processes as cores (the default builders
// and the measuring worker), the tuning process's own time per evaluation
// (the report's other) fell from 10.3 to 3.2 ms on PoCL on a 2-core host
// (`hplopt tune matmul -d CPU -n 64,64 -k 64 -s genetic -e 300`, median of
// three runs).
const builderNice = 10

// PoolStats says what a Worker's builders did.
type PoolStats struct {
	// Builders is the number of builder processes the pool keeps working
	// (WorkerSettings.Builders); 0 when the Worker has no pool.
	Builders int
	// Busy sums the time the builders spent on builds (builder-seconds).
	Busy time.Duration
	// Builds counts the builds the builders made, successful or not;
	// CacheHits the variants whose binary or rejection came from the
	// Cache instead; Failed the builds that made Compile failures
	// (rejected, crashed twice, or past the limit).
	Builds, CacheHits, Failed int
	// Restarts counts builders started again after one died or was killed;
	// Extra those started beside a slow build.
	Restarts, Extra int
	// Guesses counts the variants queued by Worker.Speculate (built, or
	// replaced by newer guesses before a builder took them; Builds counts
	// those built), Guessed those of them prepared or measured afterwards.
	Guesses, Guessed int
}

// Utilization is the fraction of elapsed time the pool's builders were
// busy: Busy / (Builders x elapsed); 0 without builders.
func (s PoolStats) Utilization(elapsed time.Duration) float64 {
	if s.Builders <= 0 || elapsed <= 0 {
		return 0
	}
	return float64(s.Busy) / (float64(s.Builders) * float64(elapsed))
}

// buildJob is one variant for the pool.
type buildJob struct {
	v     Variant
	key   string
	local []int         // the work-group size key hashes (nil when the build does not depend on it)
	done  chan struct{} // closed when bin and err are set
	// bin is the variant's binary; nil with a nil err: there is none (the
	// measuring worker builds the source). warm: on a device that compiles
	// at launch, bin holds the code of the variant's first launch.
	bin  []byte
	warm bool
	// err makes the variant a Compile failure (a Timeout one when it is
	// a *buildTimedOut: the build passed its limit).
	err   error
	tries int
	// guess: queued by speculate and not submitted since; it waits behind
	// every job submitted, and its outcome is only kept in the cache.
	guess bool
}

// pool is a Worker's builders.
type pool struct {
	n      int
	exe    string
	env    []string
	stderr *tailWriter
	setup  wireSetup     // a builder's
	limit  time.Duration // a build's limit
	run    time.Duration // the limit on a builder's first launch, once it runs
	start  time.Duration // a builder's start's limit
	cache  *Cache
	notify func(*buildJob) // called, without the lock, when a job is done

	mu       sync.Mutex
	cond     *sync.Cond
	devKey   string // set by ready; jobs are keyed with it
	lazy     bool
	jobs     map[string]*buildJob    // submitted and not taken, by key
	keys     map[string]*buildJob    // the same, by source: their keys are not hashed again
	queue    []*buildJob             // not yet given to a builder, oldest first
	slots    int                     // builder loops running
	slow     int                     // of them, those past slowAfter
	spawned  int                     // builder processes started
	took     []time.Duration         // successful builds' times, for slowAfter
	children map[*child]bool         // live builders, killed by close
	building map[*buildJob]time.Time // jobs in builders, since when
	broken   error                   // a builder could not start: no more builds here
	closed   bool
	guessed  map[string]bool // keys of the guesses built, until a submit asks for them
	guessing int             // builders building guesses (at most half of n)
	stats    PoolStats
	wg       sync.WaitGroup
}

// newPool makes a pool of n builders and starts them.
func newPool(n int, exe string, env []string, stderr *tailWriter, setup wireSetup, limit, run, start time.Duration, cache *Cache, notify func(*buildJob)) *pool {
	p := &pool{n: n, exe: exe, env: env, stderr: stderr, setup: setup, limit: limit, run: run, start: start, cache: cache, notify: notify,
		jobs: map[string]*buildJob{}, keys: map[string]*buildJob{}, children: map[*child]bool{}, building: map[*buildJob]time.Time{}}
	p.cond = sync.NewCond(&p.mu)
	p.stats.Builders = n
	p.mu.Lock()
	p.growLocked()
	p.mu.Unlock()
	return p
}

// ready gives the pool the device's key and whether it compiles at launch
// (from the measuring worker's setup), before the first submit.
func (p *pool) ready(devKey string, lazy bool) {
	p.mu.Lock()
	p.devKey, p.lazy = devKey, lazy
	p.mu.Unlock()
}

// key names v's build: its cache key (that of v's job, if it has one,
// rather than hashing its source again: Ready asks for it often).
func (p *pool) keyLocked(v Variant) string {
	var local []int
	if p.lazy {
		local = v.Local
	}
	if j := p.keys[v.Source]; j != nil && slices.Equal(j.local, local) {
		return j.key
	}
	return cacheKey(p.devKey, JoinOptions(p.setup.Measure.Options, v.Options), v.Source, local)
}

// submit returns v's job, queuing it (or taking it from the cache) unless
// it was submitted before and not taken. first puts it at the head of the
// queue, where it was not given to a builder yet.
func (p *pool) submit(v Variant, first bool) *buildJob {
	p.mu.Lock()
	key := p.keyLocked(v)
	if j := p.jobs[key]; j != nil {
		if j.guess {
			// Guessed right: the job is wanted now, ahead of the guesses.
			j.guess = false
			p.stats.Guessed++
			if i := slices.Index(p.queue, j); i >= 0 {
				p.queue = slices.Delete(p.queue, i, i+1)
				p.enqueueLocked(j, first)
			}
		} else if i := slices.Index(p.queue, j); first && i > 0 {
			p.queue = append(append([]*buildJob{j}, p.queue[:i]...), p.queue[i+1:]...)
		}
		p.mu.Unlock()
		return j
	}
	j := &buildJob{v: v, key: key, done: make(chan struct{})}
	if p.lazy {
		j.local = v.Local
	}
	p.jobs[key] = j
	p.keys[v.Source] = j
	if p.guessed[key] {
		// Built as a guess: its binary is in the cache, or, on a device
		// that compiles at launch, its machine code in that device's own.
		delete(p.guessed, key)
		p.stats.Guessed++
	}
	if p.cache != nil {
		if bin, msg, rejected, ok := p.cache.get(key); ok {
			// A binary is kept only when its builder's first launch (if it
			// made one) went well.
			j.warm = !p.lazy || (v.Local != nil && smallGrid(v.Global))
			p.stats.CacheHits++
			p.mu.Unlock()
			var err error
			if rejected {
				err = errors.New(msg)
			}
			p.finish(j, bin, err)
			return j
		}
	}
	if p.broken != nil || p.closed {
		p.mu.Unlock()
		p.finish(j, nil, nil)
		return j
	}
	p.enqueueLocked(j, first)
	p.cond.Broadcast()
	p.mu.Unlock()
	return j
}

// enqueueLocked queues j, a job submitted: first at the head of the
// queue, else behind the other jobs submitted but ahead of the guesses.
func (p *pool) enqueueLocked(j *buildJob, first bool) {
	if first {
		p.queue = slices.Insert(p.queue, 0, j)
		return
	}
	i := slices.IndexFunc(p.queue, func(q *buildJob) bool { return q.guess })
	if i < 0 {
		i = len(p.queue)
	}
	p.queue = slices.Insert(p.queue, i, j)
}

// takeableLocked reports whether a builder may take the queue's first job:
// a job submitted, or a guess while fewer than half the builders build
// guesses (the others stay free for the jobs submitted next).
func (p *pool) takeableLocked() bool {
	return len(p.queue) > 0 && (!p.queue[0].guess || p.guessing < p.n/2)
}

// speculate replaces the guesses waiting (queued, no builder started on
// them) by vs, variants that may be wanted soon, the likeliest first, at
// most n of them, behind every job submitted; a variant submitted, being
// built, or in the cache is left out. Built, a guess's binary (or
// rejection) goes to the cache only, where a submit finds it. It does
// nothing without a cache, or with one builder (half of which builds
// guesses at most).
func (p *pool) speculate(vs []Variant) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cache == nil || p.n/2 == 0 || p.broken != nil || p.closed {
		return
	}
	was := map[string]bool{}
	p.queue = slices.DeleteFunc(p.queue, func(j *buildJob) bool {
		if j.guess {
			was[j.key] = true
			p.forgetLocked(j)
		}
		return j.guess
	})
	queued := 0
	for _, v := range vs {
		if queued == p.n {
			break
		}
		key := p.keyLocked(v)
		if p.jobs[key] != nil || p.guessed[key] || p.cache.has(key) {
			continue
		}
		j := &buildJob{v: v, key: key, done: make(chan struct{}), guess: true}
		if p.lazy {
			j.local = v.Local
		}
		p.jobs[key] = j
		p.keys[v.Source] = j
		p.queue = append(p.queue, j)
		queued++
		if !was[key] {
			p.stats.Guesses++
		}
	}
	p.cond.Broadcast()
}

// forgetLocked removes j from the jobs by key and by source.
func (p *pool) forgetLocked(j *buildJob) {
	if p.jobs[j.key] == j {
		delete(p.jobs, j.key)
	}
	if p.keys[j.v.Source] == j {
		delete(p.keys, j.v.Source)
	}
}

// lookup returns v's job, or nil if it was not submitted (or was taken).
func (p *pool) lookup(v Variant) *buildJob {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.jobs[p.keyLocked(v)]
}

// steal takes j from the queue if no builder has started it, for the
// measuring worker to build.
func (p *pool) steal(j *buildJob) {
	p.mu.Lock()
	i := slices.Index(p.queue, j)
	if i >= 0 {
		p.queue = slices.Delete(p.queue, i, i+1)
	}
	p.mu.Unlock()
	if i >= 0 {
		p.finish(j, nil, nil)
	}
}

// queued reports whether j waits for a builder.
func (p *pool) queued(j *buildJob) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.queue, j)
}

// take forgets j, which Measure has used.
func (p *pool) take(j *buildJob) {
	p.mu.Lock()
	p.forgetLocked(j)
	p.queue = slices.DeleteFunc(p.queue, func(q *buildJob) bool { return q == j })
	p.mu.Unlock()
}

// buildTimedOut is the error of a build stopped at its limit: a Timeout,
// not a Compile failure, since the compiler said nothing about the
// variant (a build that is only slow on a loaded machine ends so too).
type buildTimedOut struct{ msg string }

func (e *buildTimedOut) Error() string { return e.msg }

// finish sets j's outcome and tells the Worker. A guess no submit asked
// for is forgotten but for its key in guessed: its outcome is in the
// cache (on a device that compiles at launch, its machine code in that
// device's own).
func (p *pool) finish(j *buildJob, bin []byte, err error) {
	p.mu.Lock()
	j.bin, j.err = bin, err
	if j.guess {
		p.forgetLocked(j)
		if p.guessed == nil {
			p.guessed = map[string]bool{}
		}
		p.guessed[j.key] = true
	}
	p.mu.Unlock()
	close(j.done)
	if p.notify != nil {
		p.notify(j)
	}
}

// slowAfter is how long a build runs before its builder stops counting
// among the pool's: three times the median build, at least 2 s; 10 s
// before any build ended; at most half the build's limit.
func (p *pool) slowAfterLocked() time.Duration {
	if len(p.took) == 0 {
		return min(10*time.Second, p.limit/2)
	}
	t := slices.Clone(p.took)
	slices.Sort(t)
	return min(max(2*time.Second, 3*t[len(t)/2]), p.limit/2)
}

// growLocked starts builder loops until n of them are not slow (at most
// n + max(n, 2) in all).
func (p *pool) growLocked() {
	for !p.closed && p.broken == nil && p.slots-p.slow < p.n && p.slots < p.n+max(p.n, 2) {
		if p.slots >= p.n {
			p.stats.Extra++
		}
		p.slots++
		p.wg.Add(1)
		go p.loop()
	}
}

// surplusLocked reports whether a builder loop that is not slow should end:
// more than n are not slow.
func (p *pool) surplusLocked() bool { return p.slots-p.slow > p.n }

// loop is one builder: it takes the oldest queued job, builds it in its
// builder process (started at first, and again after one is lost), until
// the pool closes or has more builders than it needs.
func (p *pool) loop() {
	defer p.wg.Done()
	var c *child
	lost := false // this loop's builder was lost: the next is a restart
	defer func() {
		if c != nil {
			p.drop(c, false)
		}
	}()
	for {
		p.mu.Lock()
		for !p.takeableLocked() && !p.closed && p.broken == nil && !p.surplusLocked() && c != nil {
			p.cond.Wait()
		}
		if p.closed || p.broken != nil || p.surplusLocked() {
			p.slots--
			p.cond.Broadcast()
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		if c == nil {
			var err error
			if c, err = p.spawn(lost); err != nil {
				p.fail(err)
				return
			}
			continue
		}
		p.mu.Lock()
		if !p.takeableLocked() {
			p.mu.Unlock()
			continue
		}
		j := p.queue[0]
		p.queue = p.queue[1:]
		guess := j.guess
		if guess {
			p.guessing++
		}
		p.mu.Unlock()
		alive := p.build(c, j)
		if guess {
			p.mu.Lock()
			p.guessing--
			p.cond.Broadcast()
			p.mu.Unlock()
		}
		if !alive {
			p.drop(c, true)
			c, lost = nil, true
		}
	}
}

// spawn starts a builder process, again after one was lost if restart.
func (p *pool) spawn(restart bool) (*child, error) {
	p.mu.Lock()
	first := p.spawned == 0
	p.spawned++
	p.mu.Unlock()
	c, _, err := spawnChild(context.Background(), p.exe, p.env, p.stderr, p.setup, first, nil, p.start, nil)
	if err != nil {
		return nil, fmt.Errorf("runner: starting a builder: %v", err)
	}
	p.mu.Lock()
	if restart {
		p.stats.Restarts++
	}
	if p.closed {
		p.mu.Unlock()
		c.kill()
		return nil, errors.New("runner: the pool is closed")
	}
	p.children[c] = true
	p.mu.Unlock()
	return c, nil
}

// fail makes the pool build nothing more, after a builder could not start:
// the jobs queued and those to come go to the measuring worker, which
// builds their source.
func (p *pool) fail(err error) {
	p.mu.Lock()
	first := p.broken == nil && !p.closed
	if first {
		p.broken = err
	}
	queue := p.queue
	p.queue = nil
	p.slots--
	p.cond.Broadcast()
	p.mu.Unlock()
	if first {
		fmt.Fprintf(p.stderr, "hplopt: %v; the measuring worker builds the variants\n", err)
	}
	for _, j := range queue {
		p.finish(j, nil, nil)
	}
}

// drop forgets the builder c, killing it, or retiring it if it is idle.
func (p *pool) drop(c *child, kill bool) {
	p.mu.Lock()
	delete(p.children, c)
	p.mu.Unlock()
	if kill {
		c.kill()
	} else {
		c.retire()
	}
}

// build builds j in the builder c and finishes j (or queues it again, to
// try once more in a new builder after c died). It reports whether c is
// still usable.
func (p *pool) build(c *child, j *buildJob) (alive bool) {
	start := time.Now()
	var slow, ended bool // guarded by p.mu
	p.mu.Lock()
	limit, after := p.limit, p.slowAfterLocked()
	p.building[j] = start
	p.mu.Unlock()
	timer := time.AfterFunc(after, func() {
		p.mu.Lock()
		if !ended {
			slow = true
			p.slow++
			p.growLocked()
		}
		p.mu.Unlock()
	})
	defer func() {
		timer.Stop()
		p.mu.Lock()
		ended = true
		if slow {
			p.slow--
			p.cond.Broadcast()
		}
		p.stats.Busy += time.Since(start)
		delete(p.building, j)
		p.mu.Unlock()
	}()

	c.send(wireRequest{Op: opBuild, Variant: j.v})
	r, st := c.await(context.Background(), limit)
	name := j.v.KernelName
	switch {
	case st == exited && p.isClosed():
		p.finish(j, nil, errors.New("runner: the worker was closed"))
		return false
	case st == exited:
		msg := c.exitMessage(p.stderr)
		p.mu.Lock()
		j.tries++
		retry := j.tries < 2 && !p.closed
		if retry {
			if j.guess {
				p.queue = append(p.queue, j)
			} else {
				p.queue = append([]*buildJob{j}, p.queue...)
			}
			p.cond.Broadcast()
		} else {
			p.stats.Builds++
			p.stats.Failed++
		}
		p.mu.Unlock()
		if !retry {
			p.finish(j, nil, fmt.Errorf("runner: the builder building %s crashed, twice (each time in a new builder): %s", name, msg))
		}
		return false
	case st == timedOut:
		p.count(true, 0)
		p.finish(j, nil, &buildTimedOut{fmt.Sprintf("runner: the build of %s did not finish within %v; builder killed", name, limit)})
		return false
	case r.Op != opCompiled:
		p.count(false, 0)
		p.finish(j, nil, nil)
		return false
	case r.Msg != "":
		p.count(true, 0)
		if p.cache != nil {
			p.cache.put(j.key, []byte(r.Msg), true)
		}
		p.finish(j, nil, errors.New(r.Msg))
		return true
	}
	// Built: the first launch, on a device that compiles at launch, whose
	// compilation is part of the build and has the build's limit; then
	// the binary. Whatever goes wrong once the launch runs is not the
	// build's fault; without a binary, the measuring worker builds the
	// source (and measures the launch with its own limits).
	r, st = c.await(context.Background(), limit)
	if st == timedOut {
		p.count(true, 0)
		p.finish(j, nil, &buildTimedOut{fmt.Sprintf("runner: the build of %s did not finish within %v: the compilation of its first launch (which this OpenCL implementation makes at launch) ran past it; builder killed", name, limit)})
		return false
	}
	if st == gotAnswer && r.Op == opStarted {
		r, st = c.await(context.Background(), p.run)
	}
	if st != gotAnswer || r.Op != opResult {
		p.count(false, 0)
		p.finish(j, nil, nil)
		return false
	}
	p.count(false, time.Since(start))
	if r.Binary != nil && r.Msg == "" && p.cache != nil {
		p.cache.put(j.key, r.Binary, false)
	}
	p.mu.Lock()
	j.warm = (r.Binary != nil && !p.lazy) || r.Warm
	p.mu.Unlock()
	p.finish(j, r.Binary, nil)
	return true
}

// count counts a build that ended (failed: a Compile failure); took, if
// positive, is a build's time for slowAfter.
func (p *pool) count(failed bool, took time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Builds++
	if failed {
		p.stats.Failed++
	}
	if took > 0 {
		p.took = append(p.took, took)
		if len(p.took) > 64 {
			p.took = p.took[1:]
		}
	}
}

func (p *pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Stats returns what the pool did so far, the builds in progress
// included in Busy.
func (p *pool) Stats() PoolStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	for _, since := range p.building {
		s.Busy += time.Since(since)
	}
	return s
}

// close kills the builders (a build in flight is abandoned: the cache
// holds only what was finished) and waits for their loops; the jobs not
// done are finished without a binary.
func (p *pool) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	children := make([]*child, 0, len(p.children))
	for c := range p.children {
		children = append(children, c)
	}
	queue := p.queue
	p.queue = nil
	p.cond.Broadcast()
	p.mu.Unlock()
	for _, c := range children {
		c.kill()
	}
	p.wg.Wait()
	for _, j := range queue {
		p.finish(j, nil, errors.New("runner: the worker was closed"))
	}
}
