// Package foundation is the foundation-agents demonstration's loop (toolkit/exp/agents/README.md; Liu, Lou, Jiao,
// Zhang, ICML 2024 — a position paper without experiments): trajectories of the grid-world task
// family (toolkit/agents/gridworld) as decision-transformer streams (toolkit/agents/dt), evaluation
// of any policy on tasks and embodiments, few-shot fine-tuning and online fine-tuning. Each is a
// small function a notebook can call; experiment "agents" (toolkit/exp/agents) composes them.
package foundation

import (
	"fmt"
	"math/rand/v2"

	"github.com/paperlab/paperlab/toolkit/agents/dt"
	gw "github.com/paperlab/paperlab/toolkit/agents/gridworld"
	"github.com/paperlab/paperlab/toolkit/track"
)

// Prefixes is the number of prefix tokens: the task's parts (layout, door, colour) and the
// embodiment, each value its own token, so a held-out task is a new combination of known tokens.
const Prefixes = 2 + 2 + 3 + gw.NumEmbodiments

// NoColour is the prefix token that stands where the colour's would (the prompt variant since 2026-12-04: the
// demonstration in context is then the only thing that says which goal pays). It comes after the
// others, so an agent that uses it needs PrefixesNoColour prefix tokens (dt.Config.Prefixes); one
// without it fails to pack such a stream, naming the prefix entry.
const NoColour = Prefixes

// PrefixesNoColour is the number of prefix tokens with NoColour.
const PrefixesNoColour = Prefixes + 1

// Prefix is the prefix of a task and embodiment: [layout, door, colour, embodiment] token indices.
func Prefix(task gw.Task, e gw.Embodiment) []int {
	p := gw.TaskParts(task)
	return []int{p[0], 2 + p[1], 4 + p[2], 7 + int(e)}
}

// PrefixNoColour is Prefix with the colour token replaced by NoColour.
func PrefixNoColour(task gw.Task, e gw.Embodiment) []int {
	p := Prefix(task, e)
	p[2] = NoColour
	return p
}

// DefaultConfig is the agent of the demonstration: a 2-layer, 64-wide trunk with room for a
// demonstration in context (2 × 24 steps × 3 tokens + prefix + SEP ≤ 160).
func DefaultConfig() dt.Config {
	return dt.Config{Dim: 64, Layers: 2, Heads: 4, Context: 160, RTGBins: 8, Actions: gw.MaxActions, Prefixes: Prefixes,
		Pixels: gw.MaxObsSize, LR: 1e-3, ClipNorm: 1, Batch: 16}
}

// SeqOf is a trajectory as the agent reads it, with an optional demonstration in context and, as
// auxiliary targets (dt.Seq.Aux), the cell of the named goal at every step. Its
// returns-to-go are normalised by the best return of its world and embodiment, 1 − StepCost·L*
// with L* the expert's shortest plan: 1 means "as well as possible here", whatever the world's
// size. (Raw returns would tie the top return bins to short worlds, and an agent asked for a high
// return in a long world would be conditioned on something its data never showed.)
func SeqOf(tr gw.Trajectory, prompt *dt.Seq) (dt.Seq, error) {
	task, err := gw.ParseTask(tr.Task)
	if err != nil {
		return dt.Seq{}, err
	}
	e := gw.Embodiment(tr.Embodiment)
	var best float64
	if tr.WorldTask == "" {
		best, err = BestReturn(task, tr.Seed, e)
	} else { // a retargeted world (gw.CollectPairs): its best plan is to the retargeted goal
		var w *gw.World
		if w, err = gw.TrajectoryWorld(tr); err == nil {
			best, err = bestReturnIn(w, task, tr.Seed, e)
		}
	}
	if err != nil {
		return dt.Seq{}, err
	}
	rtg := gw.ReturnsToGo(tr.Rewards)
	for t := range rtg {
		rtg[t] /= best
	}
	aux := make([]int, len(tr.Obs)) // where the named goal is, at every step (dt.Config.AuxWeight reads it)
	for t, o := range tr.Obs {
		aux[t] = gw.GoalIndex(o, task.Colour)
	}
	return dt.Seq{Prefix: Prefix(task, e), Obs: tr.Obs, RTG: rtg, Actions: tr.Actions, Prompt: prompt, Aux: aux}, nil
}

// AuxClasses is the number of classes of SeqOf's auxiliary targets: the cells of the grid.
const AuxClasses = gw.Size * gw.Size

// BestReturn is the return of the expert's shortest plan in the world of (task, seed) for
// embodiment e: 1 − StepCost·len(plan).
func BestReturn(task gw.Task, seed uint64, e gw.Embodiment) (float64, error) {
	w, err := gw.Generate(task, seed)
	if err != nil {
		return 0, err
	}
	return bestReturnIn(w, task, seed, e)
}

// bestReturnIn is BestReturn of a world already generated (and not yet stepped) from (task, seed).
func bestReturnIn(w *gw.World, task gw.Task, seed uint64, e gw.Embodiment) (float64, error) {
	plan, ok := gw.Plan(w, e)
	if !ok {
		return 0, fmt.Errorf("foundation: world %s seed %d has no plan for embodiment %d", task, seed, e)
	}
	return 1 - gw.StepCost*float64(len(plan)), nil
}

// Seqs converts trajectories; with promptProb > 0 each gets, with that probability, a prompt: another
// successful trajectory of the same task and embodiment (Prompt-DT's training; never itself), drawn
// with r.
func Seqs(trs []gw.Trajectory, promptProb float64, r *rand.Rand) ([]dt.Seq, error) {
	byKey := map[string][]int{}
	for i, tr := range trs {
		if tr.Success {
			k := fmt.Sprintf("%s/%d", tr.Task, tr.Embodiment)
			byKey[k] = append(byKey[k], i)
		}
	}
	out := make([]dt.Seq, 0, len(trs))
	for i, tr := range trs {
		var prompt *dt.Seq
		cands := byKey[fmt.Sprintf("%s/%d", tr.Task, tr.Embodiment)]
		if promptProb > 0 && r.Float64() < promptProb {
			k := r.IntN(max(1, len(cands)))
			if len(cands) > 0 && cands[k] == i { // never a trajectory as its own prompt
				k = (k + 1) % len(cands)
			}
			if len(cands) > 0 && cands[k] != i {
				p, err := SeqOf(trs[cands[k]], nil)
				if err != nil {
					return nil, err
				}
				prompt = &p
			}
		}
		s, err := SeqOf(tr, prompt)
		if err != nil {
			return nil, fmt.Errorf("trajectory %d: %w", i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// MaskColour puts NoColour in place of the colour token in the prefix of each stream that has a
// demonstration in context, with probability prob (drawn with r, in order): in those streams the
// demonstration is the only thing that says which goal pays (the prompt variant since 2026-12-04). The
// prefixes changed are copies; streams without a prompt are left alone and draw nothing.
func MaskColour(seqs []dt.Seq, prob float64, r *rand.Rand) {
	for i := range seqs {
		if seqs[i].Prompt == nil || prob <= 0 || r.Float64() >= prob {
			continue
		}
		p := append([]int(nil), seqs[i].Prefix...)
		p[2] = NoColour
		seqs[i].Prefix = p
	}
}

// Policy maps partial streams (their last step without an action) to next-action logits over
// gw.MaxActions: dt.Agent and dt.BC.
type Policy interface {
	ActionLogits(seqs []dt.Seq) ([][]float32, error)
}

// EvalConfig says how a policy is evaluated: Episodes per (task, embodiment), the worlds' seeds
// Seed, Seed+1, … (small seeds stay exact in a metrics file, so an episode can be replayed); Greedy acting or sampling; the desired return-to-go the stream starts from (DT); Prompts,
// when set, a demonstration in context per "task/embodiment" key.
//
// ColourShift > 0 is the colour-swap ablation: the prefix names the colour ColourShift places after
// the task's in gw.Colours (cyclically) while the world still pays for the task's own; an agent
// that reads the token then heads for the named goal (Outcome.TokenGoal). NoColour puts the
// NoColour token in the prefix instead of any colour (PrefixNoColour): with Prompts, the
// demonstration is the only task specification.
type EvalConfig struct {
	Episodes    int
	Seed        uint64
	Greedy      bool
	TargetRTG   float64
	Prompts     map[string]*dt.Seq
	ColourShift int
	NoColour    bool
}

// ShiftColour is task with its colour moved shift places along gw.Colours (cyclically).
func ShiftColour(task gw.Task, shift int) gw.Task {
	cs := gw.Colours()
	i := gw.TaskParts(task)[2]
	task.Colour = cs[((i+shift)%len(cs)+len(cs))%len(cs)]
	return task
}

// Outcome tallies a set of episodes: the shares ending on the target goal (Success), on another
// goal (WrongGoal) and out of steps (TimeOut), and the share ending on the goal the prefix's
// colour token named (TokenGoal; Success when the colour was not swapped).
type Outcome struct {
	Episodes  int     `json:"episodes"`
	Success   float64 `json:"success"`
	WrongGoal float64 `json:"wrong_goal"`
	TimeOut   float64 `json:"time_out"`
	TokenGoal float64 `json:"token_goal"`
}

// Tally is the Outcome of trajectories played with EvalConfig.ColourShift colourShift.
func Tally(trs []gw.Trajectory, colourShift int) (Outcome, error) {
	o := Outcome{Episodes: len(trs)}
	if len(trs) == 0 {
		return o, fmt.Errorf("foundation: no episodes to tally")
	}
	for i, tr := range trs {
		task, err := gw.ParseTask(tr.Task)
		if err != nil {
			return o, fmt.Errorf("episode %d: %w", i, err)
		}
		switch tr.Ending {
		case gw.EndSuccess:
			o.Success++
		case gw.EndWrongGoal:
			o.WrongGoal++
		case gw.EndTimeOut:
			o.TimeOut++
		default:
			return o, fmt.Errorf("episode %d: ending %q (a trajectory from before endings were recorded?)", i, tr.Ending)
		}
		if tr.Reached != "" && tr.Reached == ShiftColour(task, colourShift).Colour {
			o.TokenGoal++
		}
	}
	n := float64(len(trs))
	o.Success, o.WrongGoal, o.TimeOut, o.TokenGoal = o.Success/n, o.WrongGoal/n, o.TimeOut/n, o.TokenGoal/n
	return o, nil
}

// PromptKey is the key of a task and embodiment in EvalConfig.Prompts.
func PromptKey(task gw.Task, e gw.Embodiment) string { return fmt.Sprintf("%s/%d", task, e) }

// Evaluate plays Episodes episodes of every task and embodiment with the policy (all episodes
// stepped together, one batched call per step) and returns the success rate and the trajectories.
func Evaluate(p Policy, tasks []gw.Task, embodiments []gw.Embodiment, cfg EvalConfig) (success float64, trs []gw.Trajectory, err error) {
	type ep struct {
		w    *gw.World
		e    gw.Embodiment
		seq  dt.Seq
		tr   gw.Trajectory
		togo float64
		best float64 // the world's best return: returns-to-go are in its units (SeqOf)
	}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x6576616c))
	var eps []*ep
	err = eachWorld(tasks, embodiments, cfg, func(task gw.Task, e gw.Embodiment, ws uint64) error {
		w, err := gw.Generate(task, ws)
		if err != nil {
			return err
		}
		best, err := bestReturnIn(w, task, ws, e)
		if err != nil {
			return err
		}
		x := &ep{w: w, e: e, togo: cfg.TargetRTG, best: best, tr: gw.Trajectory{Task: task.String(), Embodiment: int(e), Seed: ws}}
		prefix := Prefix(ShiftColour(task, cfg.ColourShift), e)
		if cfg.NoColour {
			prefix = PrefixNoColour(task, e)
		}
		x.seq = dt.Seq{Prefix: prefix, Prompt: cfg.Prompts[PromptKey(task, e)]}
		eps = append(eps, x)
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	for step := 0; step < gw.Limit; step++ {
		var active []*ep
		var seqs []dt.Seq
		for _, x := range eps {
			if x.w.Done() {
				continue
			}
			o := x.w.Obs(x.e)
			x.seq.Obs, x.seq.RTG = append(x.seq.Obs, o), append(x.seq.RTG, x.togo)
			x.tr.Obs = append(x.tr.Obs, o)
			active, seqs = append(active, x), append(seqs, x.seq)
		}
		if len(active) == 0 {
			break
		}
		logits, err := p.ActionLogits(seqs)
		if err != nil {
			return 0, nil, fmt.Errorf("step %d: %w", step, err)
		}
		for i, x := range active {
			a := dt.Choose(logits[i], gw.NumActions(x.e), cfg.Greedy, r)
			rew, _ := x.w.Step(x.e, a)
			x.togo -= rew / x.best
			x.seq.Actions = append(x.seq.Actions, a)
			x.tr.Actions, x.tr.Rewards = append(x.tr.Actions, a), append(x.tr.Rewards, rew)
		}
	}
	var wins int
	for _, x := range eps {
		x.tr.Success, x.tr.Ending, x.tr.Reached = x.w.Success(), x.w.Ending(), x.w.Reached()
		if x.tr.Success {
			wins++
		}
		trs = append(trs, x.tr)
	}
	return float64(wins) / float64(len(eps)), trs, nil
}

// eachWorld calls f for the worlds an evaluation of cfg plays, in its order — task, embodiment,
// then Episodes episodes — with world seeds cfg.Seed, cfg.Seed+1, …; it stops at f's first error.
func eachWorld(tasks []gw.Task, embodiments []gw.Embodiment, cfg EvalConfig, f func(task gw.Task, e gw.Embodiment, ws uint64) error) error {
	ws := cfg.Seed
	for _, task := range tasks {
		for _, e := range embodiments {
			for i := 0; i < cfg.Episodes; i++ {
				if err := f(task, e, ws); err != nil {
					return err
				}
				ws++
			}
		}
	}
	return nil
}

// EvaluateReference plays the reference policy name (gw.References) in the worlds Evaluate plays
// with the same tasks, embodiments and cfg (the same world seeds in the same order; Greedy,
// TargetRTG, Prompts and ColourShift do not apply), and returns its success rate and trajectories.
func EvaluateReference(name string, tasks []gw.Task, embodiments []gw.Embodiment, cfg EvalConfig) (float64, []gw.Trajectory, error) {
	var trs []gw.Trajectory
	var wins int
	err := eachWorld(tasks, embodiments, cfg, func(task gw.Task, e gw.Embodiment, ws uint64) error {
		tr, _, err := gw.PlayReference(name, task, e, ws, ws^0x726566)
		if err != nil {
			return err
		}
		if tr.Success {
			wins++
		}
		trs = append(trs, tr)
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	if len(trs) == 0 {
		return 0, nil, fmt.Errorf("foundation: no episodes (tasks, embodiments or episodes empty)")
	}
	return float64(wins) / float64(len(trs)), trs, nil
}

// OnlineConfig is online fine-tuning: Rounds of Episodes sampled episodes per (task, embodiment),
// every episode added to the buffer with its own returns-to-go, then Updates optimizer steps on the
// buffer (return-conditioned, so failed episodes teach what not to condition on).
type OnlineConfig struct {
	Rounds, Episodes, Updates int
	TargetRTG                 float64
}

// Online fine-tunes agent a on tasks from its own experience, starting with buffer (e.g. nothing,
// or demonstrations), and returns the curves "online_success" (the success rate of each round's
// sampled episodes) and "online_steps" (environment steps so far) against episodes played.
func Online(a *dt.Agent, tasks []gw.Task, embodiments []gw.Embodiment, buffer []dt.Seq, cfg OnlineConfig, seed uint64, progress track.Progress) (track.Curves, error) {
	if progress == nil {
		progress = track.NoProgress{}
	}
	r := rand.New(rand.NewPCG(seed, 0x6f6e6c696e65))
	curves := track.Curves{}
	steps, played := 0, 0
	for round := 1; round <= cfg.Rounds; round++ {
		succ, trs, err := Evaluate(a, tasks, embodiments, EvalConfig{Episodes: cfg.Episodes, Seed: r.Uint64(), TargetRTG: cfg.TargetRTG})
		if err != nil {
			return curves, fmt.Errorf("online round %d: %w", round, err)
		}
		for _, tr := range trs {
			steps += len(tr.Actions)
			s, err := SeqOf(tr, nil)
			if err != nil {
				return curves, err
			}
			buffer = append(buffer, s)
		}
		played += len(trs)
		curves.Add("online_success", float64(played), succ)
		curves.Add("online_steps", float64(played), float64(steps))
		if _, err := a.Train(buffer, cfg.Updates, r, nil); err != nil {
			return curves, fmt.Errorf("online round %d: %w", round, err)
		}
		progress.Update(round, fmt.Sprintf("online success %.2f, %d steps", succ, steps))
	}
	return curves, nil
}
