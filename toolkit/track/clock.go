package track

import "time"

// Clock measures a run's cost from its start in wall seconds and in CPU seconds (user + system
// time of this process, every thread included): on a machine other jobs share, wall time counts
// their load too, CPU time only this process's work. Run one job per process (a worker) for its
// CPU seconds to be the job's alone.
type Clock struct {
	wall time.Time
	cpu  float64
}

// StartClock starts a clock now.
func StartClock() Clock { return Clock{wall: time.Now(), cpu: ProcessCPUSeconds()} }

// Wall is the wall time since the clock started, in seconds.
func (c Clock) Wall() float64 { return time.Since(c.wall).Seconds() }

// CPU is the process's CPU time since the clock started, in seconds (NaN where the platform does
// not report it).
func (c Clock) CPU() float64 { return ProcessCPUSeconds() - c.cpu }

// Start is when the clock started.
func (c Clock) Start() time.Time { return c.wall }
