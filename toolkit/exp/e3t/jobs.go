package e3t

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/jobs"
	"github.com/paperlab/paperlab/toolkit/fsx"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	e3 "github.com/paperlab/paperlab/toolkit/marl/e3t"
	"github.com/paperlab/paperlab/toolkit/marl/env/overcooked"
	"github.com/paperlab/paperlab/toolkit/marl/fcp"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Family is a kind of agent the experiment trains: a method's Mode and a held-out learned partner's
// Family name one. Adding an Overcooked baseline is a package with a Train and an entry here.
type Family struct {
	// Name is the Method.Mode that selects it.
	Name string
	// Source is the folder (relative to the checkout) of Train's training loop: the job cache's key
	// hashes it (TrainingSources).
	Source string
	// Train trains one agent: job.Train holds the experiment's game and PPO settings with the
	// method's mode, ε and partner model; pop is the population (empty unless WithPartners); monitor
	// the partner the ego is evaluated with every job.MonitorEvery iterations (nil: none).
	Train func(job Job, pop []e3.Agent, monitor e3.Agent, progress track.Progress) (*done, error)
	// Population: the family's agents, at each of their snapshots, are the population of the
	// families trained WithPartners (SP's agents are FCP's partners).
	Population bool
	// WithPartners: trained against the population, so submitted and evaluated after every other
	// family, and its cost (environment steps, seconds) counts its population's training.
	WithPartners bool
	// Epsilon: the family's ε weighs its mixture partner (the ε sweep figure plots its methods).
	Epsilon bool
	// HeldOut is the training of the family's held-out partners from the experiment's settings tc
	// and methods; nil: the family adds no held-out partners to the pool (a new baseline joins the
	// comparison without changing the partners every other method is judged with).
	HeldOut func(tc e3.Config, methods []Method) e3.Config
}

// Families are the kinds of agents, in the order of each seed's held-out partners (sp-h<seed>,
// fcp-h<seed>, e3t-h<seed>). A Population family comes before the WithPartners ones.
var Families = []Family{
	{Name: "sp", Source: "toolkit/marl/e3t", Train: trainE3T, Population: true,
		HeldOut: func(tc e3.Config, _ []Method) e3.Config { tc.Mode = "sp"; return tc }},
	{Name: "fcp", Source: "toolkit/marl/fcp", Train: trainFCP, WithPartners: true,
		HeldOut: func(tc e3.Config, _ []Method) e3.Config { tc.Mode = "sp"; return tc }},
	{Name: "e3t", Source: "toolkit/marl/e3t", Train: trainE3T, Epsilon: true,
		HeldOut: func(tc e3.Config, methods []Method) e3.Config {
			tc.Mode, tc.Epsilon, tc.PartnerModel = "e3t", 0.5, true
			for _, m := range methods { // the held-out E3T agent is trained like the "e3t" method
				if m.Name == "e3t" {
					tc.Epsilon, tc.PartnerModel = m.Epsilon, m.PartnerModel
				}
			}
			return tc
		}},
}

// family is the entry of Families named name.
func family(name string) (Family, bool) {
	i := slices.IndexFunc(Families, func(f Family) bool { return f.Name == name })
	if i < 0 {
		return Family{}, false
	}
	return Families[i], true
}

// trainE3T trains an SP or E3T agent (e3.Train; job.Train.Mode says which).
func trainE3T(job Job, _ []e3.Agent, monitor e3.Agent, progress track.Progress) (*done, error) {
	r, err := e3.Train(job.Train, job.Seed, e3.Options{Monitor: monitor, MonitorEvery: job.MonitorEvery, Progress: progress})
	if err != nil {
		return nil, err
	}
	return &done{Policy: r.Policy, Curves: r.Curves, Snapshots: r.Snapshots, PMSnapshots: r.PMSnapshots, SnapshotInfo: r.SnapshotInfo, EnvSteps: r.EnvSteps}, nil
}

// trainFCP trains FCP's best response to the population (fcp.Train).
func trainFCP(job Job, pop []e3.Agent, monitor e3.Agent, progress track.Progress) (*done, error) {
	br, err := fcp.Train(fcpConfig(job.Train, job.Partners), job.Seed, pop, fcp.Options{Monitor: monitor, MonitorEvery: job.MonitorEvery, Progress: progress})
	if err != nil {
		return nil, err
	}
	return &done{Policy: &e3.Policy{Actor: br.Actor}, Curves: br.Curves, Snapshots: br.Snapshots, SnapshotInfo: br.SnapshotInfo, EnvSteps: br.EnvSteps}, nil
}

// fcpConfig is FCP's best-response configuration: the same network, PPO settings and observation
// scaling as the other methods, its budget and snapshots as the job sets them (Config.trainFor),
// partners population members per iteration.
func fcpConfig(tc e3.Config, partners int) fcp.Config {
	return fcp.Config{Game: tc.Game, Envs: tc.Envs, Iters: tc.Iters, Partners: partners, Hidden: tc.Hidden, ObsScale: e3.ObsScale,
		Gamma: tc.Gamma, Lambda: tc.Lambda, Clip: tc.Clip, EntCoef: tc.EntCoef, Epochs: tc.Epochs, MiniBatches: tc.MiniBatches,
		LR: tc.LR, MaxGradNorm: tc.MaxGradNorm, ShapingSteps: tc.ShapingSteps, SnapshotAt: tc.SnapshotAt}
}

// Job is one training of the experiment (the runner's jobs.Job carries its ID and the SP jobs
// whose snapshots FCP plays with, Needs). Trainings run in this process or, with
// exp.Options.Workers > 1 (`paperlab e3t -jobs N` on ONNX Runtime, whose process runs one graph at a
// time), in worker processes (`paperlab worker e3t JOB.json`); see package jobs.
type Job struct {
	// Family names the entry of Families that trains it.
	Family string `json:"family"`
	Seed   uint64 `json:"seed"`
	// Train is the game and PPO settings with the method's mode, ε and partner model; Partners the
	// population members per iteration of a WithPartners family (fcp.Config.Partners).
	Train    e3.Config `json:"train"`
	Partners int       `json:"partners,omitempty"`
	// MonitorDir holds the policy of the monitor partner (a saved e3t.Policy, or in this process
	// the key shareMonitor gave it; "" with a scripted monitor: Monitor), evaluated every
	// MonitorEvery iterations.
	MonitorDir   string               `json:"monitor_dir,omitempty"`
	Monitor      *overcooked.Scripted `json:"monitor,omitempty"`
	MonitorEvery int                  `json:"monitor_every,omitempty"`
}

// done is a finished job: the trained policy and what the loop reads of its run — its snapshots
// (actor weights, a partner model's, where each was taken), environment steps, and the seconds of
// wall and of CPU time (this process's, every thread: a worker trains one job) the training took.
type done struct {
	Policy       *e3.Policy    `json:"-"`
	Curves       track.Curves  `json:"curves"`
	Snapshots    [][]float32   `json:"snapshots,omitempty"`
	PMSnapshots  [][]float32   `json:"pm_snapshots,omitempty"`
	SnapshotInfo []ac.Snapshot `json:"snapshot_info,omitempty"`
	EnvSteps     int           `json:"env_steps"`
	Seconds      float64       `json:"seconds"`
	CPUSeconds   float64       `json:"cpu_seconds"`
}

// TrainingSources are the files and folders (relative to the checkout) whose Go files decide a
// training's result, the job cache's key (jobs.Salt): the packages every family's training imports
// from this module (a test checks the list against `go list -deps`), this file (how a job trains:
// Families, train, population, snapshots, snapshotPolicy) and go.mod / go.sum (the engine
// versions). Editing another package (marl/tape, say) keeps the cache valid.
func TrainingSources() []string {
	srcs := []string{"toolkit/marl/ac", "toolkit/marl/env", "toolkit/marl/env/overcooked",
		"toolkit/backend", "toolkit/dist", "toolkit/fsx", "toolkit/nn", "toolkit/registry",
		"toolkit/repo", "toolkit/stats", "toolkit/track", "toolkit/plot/anim", "toolkit/exp/e3t/jobs.go", "go.mod", "go.sum"}
	for _, f := range Families {
		if !slices.Contains(srcs, f.Source) {
			srcs = append(srcs, f.Source)
		}
	}
	return srcs
}

// runner trains the experiment's jobs (jobs.Runner) with the monitor partners they watch.
type runner struct {
	*jobs.Runner[Job, *done]
	monitors    map[string]e3.Agent // by MonitorDir: shared by shareMonitor, or loaded once
	monitorKeys map[string]string   // the content key of each shared monitor, by MonitorDir
}

// newRunner is the experiment's job runner under opt (workers, cache).
func newRunner(opt exp.Options) (*runner, error) {
	j := &runner{monitors: map[string]e3.Agent{}, monitorKeys: map[string]string{}}
	var err error
	j.Runner, err = jobs.New(j.kind(), opt)
	return j, err
}

// kind is how the experiment's jobs train and keep their results.
func (j *runner) kind() jobs.Kind[Job, *done] {
	return jobs.Kind[Job, *done]{
		Experiment: "e3t", Sources: TrainingSources(),
		Iters: func(job Job) int { return job.Train.Iters },
		Train: j.train, Save: saveDone, Load: loadDone, Saved: savedDone,
		Close: func(d *done) { d.Policy.Close() },
		// A shared monitor is keyed by its content, not its place.
		KeySpec: func(job Job) Job { job.MonitorDir = j.monitorKeys[job.MonitorDir]; return job },
	}
}

// train runs one job with its monitor and population (the snapshots of the SP jobs it needs).
func (j *runner) train(job jobs.Job[Job], in jobs.Inputs[*done], progress track.Progress) (*done, error) {
	f, ok := family(job.Spec.Family)
	if !ok {
		return nil, fmt.Errorf("%s: unknown family %q", job.ID, job.Spec.Family)
	}
	monitor, err := j.monitor(job.Spec)
	if err != nil {
		return nil, err
	}
	pop, err := population(job.Needs, in.Get, in.Owned)
	if err != nil {
		return nil, err
	}
	defer closeAll(pop)
	clk := track.StartClock()
	d, err := f.Train(job.Spec, pop, monitor, progress)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", job.ID, err)
	}
	d.Seconds, d.CPUSeconds = clk.Wall(), clk.CPU()
	return d, nil
}

// population is FCP's partners for ids: of each SP result, the snapshots fcp.PickCheckpoints
// chooses by their training returns (init, the one closest to half the final return, final), in
// order.
// release closes each result's own policy once copied (a worker's loaded copy); on an error the
// members made so far are closed.
func population(ids []string, get func(id string) (*done, error), release bool) ([]e3.Agent, error) {
	var pop []e3.Agent
	for _, id := range ids {
		sp, err := get(id)
		if err != nil {
			closeAll(pop)
			return nil, err
		}
		ms, err := members(sp)
		if release {
			sp.Policy.Close()
		}
		if err != nil {
			closeAll(pop)
			return nil, err
		}
		pop = append(pop, ms...)
	}
	return pop, nil
}

// closeAll closes policies (frozen population members).
func closeAll(agents []e3.Agent) {
	for _, a := range agents {
		a.(*e3.Policy).Close()
	}
}

// monitor is job's monitor partner (nil: none): a shared or already loaded policy, one loaded from
// MonitorDir, or the scripted cook.
func (j *runner) monitor(job Job) (e3.Agent, error) {
	switch {
	case job.MonitorDir != "":
		if m, ok := j.monitors[job.MonitorDir]; ok {
			return m, nil
		}
		be, _, err := backend.Get()
		if err != nil {
			return nil, err
		}
		p, _, err := e3.LoadPolicy(be, job.MonitorDir)
		if err != nil {
			return nil, err
		}
		j.monitors[job.MonitorDir] = p
		return p, nil
	case job.Monitor != nil:
		return overcooked.ScriptedAgent{Scripted: *job.Monitor}, nil
	}
	return nil, nil
}

// shareMonitor makes a layout's monitor partner (the BC policy) available to jobs under a key: in
// this process the policy itself, for workers a saved copy in the worker folder (the key is its path).
// With a job cache the saved policy's content keys the jobs that watch it.
func (j *runner) shareMonitor(layout string, p *e3.Policy) (key string, err error) {
	if j.WorkDir() == "" {
		key = "monitor:" + layout
		j.monitors[key] = p
	} else {
		key = filepath.Join(j.WorkDir(), "monitor-"+layout)
		if err := e3.SavePolicy(key, p, nil); err != nil {
			return "", err
		}
	}
	if !j.Caching() {
		return key, nil
	}
	dir := key
	if j.WorkDir() == "" {
		tmp, err := os.MkdirTemp("", "e3t-monitor-*")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		if dir = filepath.Join(tmp, "policy"); e3.SavePolicy(dir, p, nil) != nil {
			return "", fmt.Errorf("job cache: saving the %s monitor", layout)
		}
	}
	h, err := jobs.HashDir(dir)
	if err != nil {
		return "", fmt.Errorf("job cache: %w", err)
	}
	j.monitorKeys[key] = h
	return key, nil
}

// kept are the indices of the snapshots of an SP run that FCP keeps: fcp.PickCheckpoints on their
// training returns, every snapshot when the run recorded none.
func (r *done) kept() []int {
	if len(r.SnapshotInfo) == len(r.Snapshots) && len(r.Snapshots) > 0 {
		return fcp.PickCheckpoints(snapshotReturns(r.SnapshotInfo))
	}
	keep := make([]int, len(r.Snapshots))
	for i := range keep {
		keep[i] = i
	}
	return keep
}

// snapshotReturns are the snapshots' training returns, in order.
func snapshotReturns(info []ac.Snapshot) []float64 {
	rets := make([]float64, len(info))
	for i, s := range info {
		rets[i] = s.Return
	}
	return rets
}

// members turns the checkpoints of an SP run that FCP keeps (kept) into frozen policies.
func members(r *done) ([]e3.Agent, error) {
	var out []e3.Agent
	for _, i := range r.kept() {
		p, err := snapshotPolicy(r.Policy, r.Snapshots[i], nil)
		if err != nil {
			for _, a := range out {
				a.(*e3.Policy).Close()
			}
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// snapshotPolicy is a frozen copy of a policy with other actor weights w (a past checkpoint) and,
// for a policy with a partner model, that model's weights pm at the same point; the copy owns its
// networks (Close frees them).
func snapshotPolicy(p *e3.Policy, w, pm []float32) (*e3.Policy, error) {
	if p.PM != nil && pm == nil {
		return nil, fmt.Errorf("snapshot of a policy with a partner model: no partner-model weights")
	}
	clone := func(n *ac.Net, w []float32) (*ac.Net, error) {
		c, err := n.CloneWeights()
		if err != nil {
			return nil, err
		}
		if err := c.SetWeights(w); err != nil {
			c.Close()
			return nil, err
		}
		out := *n
		out.Model = c
		return &out, nil
	}
	actor, err := clone(p.Actor, w)
	if err != nil {
		return nil, err
	}
	sp := &e3.Policy{Actor: actor, K: p.K}
	if p.PM != nil {
		if sp.PM, err = clone(p.PM, pm); err != nil {
			actor.Close()
			return nil, err
		}
	}
	return sp, nil
}

// saveDone writes a result where loadDone finds it: dir/policy (e3t.SavePolicy) and dir/result.json
// (last: savedDone checks it).
func saveDone(dir string, d *done) error {
	if err := e3.SavePolicy(filepath.Join(dir, "policy"), d.Policy, nil); err != nil {
		return err
	}
	return fsx.WriteJSON(filepath.Join(dir, "result.json"), d)
}

func loadDone(dir string) (*done, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		return nil, err
	}
	var d done
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "result.json"), err)
	}
	be, _, err := backend.Get()
	if err != nil {
		return nil, err
	}
	if d.Policy, _, err = e3.LoadPolicy(be, filepath.Join(dir, "policy")); err != nil {
		return nil, err
	}
	return &d, nil
}

// savedDone reports whether dir holds a finished job: result.json (written last) decodes and the
// policy is there.
func savedDone(dir string) bool {
	raw, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		return false
	}
	var d done
	if json.Unmarshal(raw, &d) != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "policy", "policy.json"))
	return err == nil
}

// Worker trains the job in file path (written by a parent run with workers) and saves its result
// beside it: `paperlab worker e3t JOB.json`.
func Worker(path string) error {
	j := &runner{monitors: map[string]e3.Agent{}, monitorKeys: map[string]string{}}
	return jobs.Work(j.kind(), path)
}
