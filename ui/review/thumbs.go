package review

import (
	"context"
	"image"
	"sync"
	"sync/atomic"
)

// thumbLoader makes the step list's thumbnails: a row asks for its
// picture when it is drawn, a worker goroutine decodes it from the store
// and hands it over through the window's bridge, and rows of an episode
// that is no longer open are skipped. It lives on the Fyne goroutine
// except for worker, which stops when the screen closes.
type thumbLoader struct {
	p *player

	images   map[int]image.Image // made, by step index
	pending  map[int]bool        // asked of the worker
	loadGen  int                 // counts the episodes opened
	liveGen  atomic.Int64        // loadGen, for the worker to skip stale jobs
	syncLoad bool                // tests: load thumbnails inline

	work chan thumbJob
	// workers counts worker goroutines still running (tests wait on it).
	workers sync.WaitGroup
	// stop ends the worker before the screen's life ends (tests).
	stop context.CancelFunc
}

type thumbJob struct {
	gen   int
	epID  string
	index int
}

// init starts the worker; it stops when life ends, or at stop.
func (l *thumbLoader) init(p *player, life context.Context) {
	l.p = p
	l.images, l.pending = map[int]image.Image{}, map[int]bool{}
	l.work = make(chan thumbJob, 256)
	ctx, stop := context.WithCancel(life)
	l.stop = stop
	l.workers.Add(1)
	go l.worker(ctx)
}

// reset forgets the thumbnails of the episode that was open.
func (l *thumbLoader) reset() {
	l.loadGen++
	l.liveGen.Store(int64(l.loadGen))
	l.images, l.pending = map[int]image.Image{}, map[int]bool{}
}

// forget drops step i's thumbnail (its screenshot changed): the row asks
// for it again.
func (l *thumbLoader) forget(i int) {
	delete(l.images, i)
	delete(l.pending, i)
	if l.p != nil && l.p.stepList != nil {
		l.p.stepList.RefreshItem(i)
	}
}

// request loads step i's thumbnail on the worker (or inline in tests).
func (l *thumbLoader) request(i int) {
	p := l.p
	if p.ep == nil || l.pending[i] {
		return
	}
	if l.syncLoad {
		if img, err := p.t.store.ThumbnailImage(p.t.life, p.ep.ID, i); err == nil {
			l.images[i] = img
		}
		return
	}
	select {
	case l.work <- thumbJob{gen: l.loadGen, epID: p.ep.ID, index: i}:
		l.pending[i] = true
	default: // the worker is busy; the row asks again when it is redrawn
	}
}

// worker makes thumbnails until ctx ends (the screen closed); from then
// on it hands nothing over.
func (l *thumbLoader) worker(ctx context.Context) {
	defer l.workers.Done()
	p := l.p
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-l.work:
			if int64(j.gen) != l.liveGen.Load() {
				continue // another episode was opened meanwhile
			}
			img, err := p.t.store.ThumbnailImage(ctx, j.epID, j.index)
			if ctx.Err() != nil {
				return
			}
			p.t.ctx.UI().Do(func() {
				if ctx.Err() != nil || j.gen != l.loadGen {
					return // closed, or another episode is open now
				}
				delete(l.pending, j.index)
				if err != nil {
					return // the row stays without a picture
				}
				l.images[j.index] = img
				p.stepList.RefreshItem(j.index)
			})
		}
	}
}
