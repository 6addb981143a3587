package chromium

// Warm reports whether the pool has a Chromium that has started, runs and
// takes new engines: a reset now opens a browser context in it instead of
// waiting for a start (serve's readiness).
func (p *Pool) Warm() bool {
	p.mu.Lock()
	all := append([]*Browser(nil), p.all...)
	p.mu.Unlock()
	for _, b := range all {
		if b.started() && !b.Draining() && b.Alive() {
			return true
		}
	}
	return false
}
