package autotune

import (
	"math"
	"time"
)

// MinBudget and MaxBudget bound a search's time budget (Settings.Budget) as
// the hplopt command's -t and hpl.ParseSettings accept it: a budget under a
// millisecond ends before any variant is built (and one under a nanosecond
// would round to 0, which means no budget at all), and one over a million
// seconds (11.6 days) nears the largest time.Duration.
const (
	MinBudget = time.Millisecond
	MaxBudget = 1e6 * time.Second
)

// Seconds converts a time given in seconds, as the command line gives
// budgets and timeouts, to a duration rounded to the nanosecond. ok is false
// when x is NaN, infinite or outside [lo, hi]; converted unchecked, NaN and
// +Inf seconds give a negative duration, and a search with a negative budget
// never ends.
func Seconds(x float64, lo, hi time.Duration) (d time.Duration, ok bool) {
	if math.IsNaN(x) || x < lo.Seconds() || x > hi.Seconds() {
		return 0, false
	}
	return time.Duration(math.Round(x * float64(time.Second))), true
}
