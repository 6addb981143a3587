package gym

import (
	"testing"
	"time"

	"waymark/engine/action"
)

// An observation is terminated when the task was answered, truncated when
// the episode was cut short or reached its step limit, never both.
func TestGymObserveEnds(t *testing.T) {
	one := 1.0
	for _, c := range []struct {
		obs         action.Observation
		step, limit int
		term, trunc bool
		reward      float64
	}{
		{action.Observation{}, 0, 5, false, false, 0},
		{action.Observation{Done: true, EndReason: action.EndFinished, Reward: &one}, 2, 5, true, false, 1},
		{action.Observation{Done: true, EndReason: action.EndStepLimit}, 2, 5, false, true, 0},
		{action.Observation{Done: true, EndReason: action.EndCrashed}, 2, 5, false, true, 0},
		{action.Observation{}, 5, 5, false, true, 0},
		{action.Observation{Done: true, EndReason: action.EndFinished}, 5, 5, true, false, 0},
	} {
		st := Session{step: c.step, cfg: Config{Limit: c.limit}, start: time.Now()}
		line, err := st.observe(c.obs, "noop()", "", nil)
		if err != nil || line.Terminated != c.term || line.Truncated != c.trunc || line.Reward != c.reward {
			t.Errorf("%+v at step %d of %d: terminated %v truncated %v reward %v (%v)", c.obs, c.step, c.limit, line.Terminated, line.Truncated, line.Reward, err)
		}
		if line.GoalObject == nil || len(line.OpenPagesURLs) != 1 || len(line.ActivePageIndex) != 1 || len(line.ElapsedTime) != 1 {
			t.Errorf("shape: %+v", line)
		}
	}
}
