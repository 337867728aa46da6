// Command smaxprobe trains MAPPO or IPPO (marl/ppo) on a SMAX scenario and reports the greedy win
// rate against the heuristic enemy: a probe of settings before a protocol is fixed. With -learner
// KIND it trains the m3apg experiment's Central-Q learner (part smax's settings) with that critic
// kind instead; with -evaluate KIND it times that kind's policy evaluation and the Monte-Carlo set
// (part smax's sizes), and reports the critic's errors on it.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/exp"
	expm3apg "github.com/paperlab/paperlab/toolkit/exp/m3apg"
	"github.com/paperlab/paperlab/toolkit/exp/smax"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	_ "github.com/paperlab/paperlab/toolkit/marl/env/smax"
	"github.com/paperlab/paperlab/toolkit/marl/m3apg"
	"github.com/paperlab/paperlab/toolkit/marl/ppo"
)

func main() {
	scenario := flag.String("scenario", "smax:3m-norm", "environment")
	critic := flag.String("critic", "central", "central (MAPPO) or independent (IPPO)")
	envs := flag.Int("envs", 64, "environments")
	steps := flag.Int("steps", 64, "steps per rollout")
	iters := flag.Int("iters", 100, "iterations")
	hidden := flag.Int("hidden", 64, "hidden units")
	lr := flag.Float64("lr", 2e-3, "learning rate (actor and critic)")
	ent := flag.Float64("ent", 0.0, "entropy coefficient")
	epochs := flag.Int("epochs", 4, "epochs")
	mb := flag.Int("mb", 4, "mini-batches")
	grad := flag.Float64("grad", 0.25, "max grad norm")
	eval := flag.Int("eval", 64, "greedy evaluation episodes")
	seed := flag.Uint64("seed", 1, "seed")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	timing := flag.String("timing", "", "PPO: print only the median seconds per iteration after 2 warm-up iterations, with this label (bench/smax_ppo.sh)")
	learner := flag.String("learner", "", "critic kind of a Central-Q learner run (m3apg experiment, part smax) instead of PPO")
	evaluate := flag.String("evaluate", "", "critic kind of a policy evaluation with the Monte-Carlo set (m3apg experiment, part smax)")
	actorLR := flag.Float64("actor-lr", 0, "Central-Q learner: actor learning rate (0: part smax's)")
	frozen := flag.Int("frozen", 0, "policy evaluation: MAPPO iterations (the smax gate's settings) whose actor is the frozen policy (0: the initial one)")
	rollouts := flag.Int("rollouts", 0, "policy evaluation: Monte-Carlo rollouts per joint action (0: part smax's)")
	gamma := flag.Float64("gamma", 0, "Central-Q learner and policy evaluation: γ (0: part smax's)")
	lambda := flag.Float64("lambda", 0, "Central-Q learner and policy evaluation: λ (0: part smax's)")
	criticHidden := flag.Int("critic-hidden", 0, "Central-Q learner and policy evaluation: the critic's hidden units (0: part smax's)")
	criticLR := flag.Float64("critic-lr", 0, "Central-Q learner and policy evaluation: the critic's learning rate (0: part smax's)")
	supervised := flag.String("supervised", "", "critic kind regressed straight on the Monte-Carlo Q of the seen rows (-iters Adam steps of 256 rows): can it rank joint actions at all?")
	fromPolicy := flag.Bool("from-policy", false, "policy evaluation: value joint actions drawn from the frozen policy, not uniformly")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	if *gamma > 0 || *lambda > 0 || *criticLR > 0 || *criticHidden > 0 {
		probeOverride = func(c *expm3apg.SMAXConfig) {
			if *gamma > 0 {
				c.Learner.Gamma, c.MC.Gamma = *gamma, *gamma
			}
			if *lambda > 0 {
				c.Learner.Lambda = *lambda
			}
			if *criticHidden > 0 {
				c.Learner.Critic.Hidden = *criticHidden
			}
			if *criticLR > 0 {
				c.Learner.Critic.Opt.LR = *criticLR
			}
		}
	}
	if *supervised != "" {
		probeSupervised(*supervised, *iters, *seed, *frozen, *rollouts)
		return
	}
	if *learner != "" || *evaluate != "" {
		probeM3APG(*learner, *evaluate, *iters, *actorLR, *ent, *eval, *seed, *frozen, *rollouts, *fromPolicy)
		return
	}
	c := ppo.Default(*scenario, *critic)
	c.Envs, c.Steps, c.Iters, c.Hidden, c.LRActor, c.LRCritic, c.EntCoef = *envs, *steps, *iters, *hidden, *lr, *lr, *ent
	c.Epochs, c.MiniBatches, c.MaxGradNorm, c.ObsScale = *epochs, *mb, *grad, 1
	start := time.Now()
	if *timing != "" {
		timePPO(c, *seed, *timing)
		return
	}
	every := max(1, *iters/10)
	curves, actor, err := ppo.Train(c, *seed, ppo.Hooks{OnIter: func(n int, m map[string]float64) {
		if it := n / (c.Envs * c.Steps); it%every == 0 {
			fmt.Printf("iter %d steps %d return %.3f entropy %.3f vloss %.4f sps %.0f (%.0fs)\n", it, n, m["episodic_return"], m["entropy"], m["value_loss"], m["SPS"], time.Since(start).Seconds())
		}
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer actor.Close()
	_ = curves
	wins, rets := 0, 0.0
	returns, err := ac.Evaluate(*scenario, actor, 1, *eval, *seed+1000, true)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range returns {
		rets += r
		if r > 1.5 { // SMAX: damage shares sum to at most 1; a win adds 1
			wins++
		}
	}
	sp, _ := env.Make(*scenario)
	fmt.Printf("%s %s: greedy win rate %.3f, mean return %.3f over %d episodes; %d env steps in %.0fs\n", sp.Spec().Name, *critic,
		float64(wins)/float64(*eval), rets/float64(*eval), *eval, c.Envs*c.Steps*c.Iters, time.Since(start).Seconds())
}

// probeM3APG runs part smax's Central-Q learner (learner ≠ "") for iters iterations and its greedy
// win rate, or a policy evaluation (evaluate ≠ "") for iters iterations after building the
// Monte-Carlo set, printing the time of each stage.
func probeM3APG(learner, evaluate string, iters int, actorLR, ent float64, episodes int, seed uint64, frozen, rollouts int, fromPolicy bool) {
	cfg := expm3apg.SMAXConfigFor(exp.Default)
	if probeOverride != nil {
		probeOverride(&cfg)
	}
	start := time.Now()
	if learner != "" {
		lc := cfg.LearnerFor(learner)
		lc.Iters = iters
		if actorLR > 0 {
			lc.LRActor = actorLR
		}
		lc.EntCoef = ent
		every := max(1, iters/10)
		curves, err := m3apg.Train(lc, seed, m3apg.Hooks{Progress: iterPrinter{every: every, start: start}, Trained: func(_ *m3apg.Critic, a *ac.Net, _ []bool) error {
			w, r, err := smax.WinRate(cfg.Scenario, a, 1, episodes, seed+1000)
			fmt.Printf("%s learner: greedy win rate %.3f, return %.3f over %d battles\n", learner, w, r, episodes)
			return err
		}})
		if err != nil {
			log.Fatal(err)
		}
		ret := curves["episodic_return"]
		fmt.Printf("%s learner: %d iterations × %d steps in %.0fs (%.2f s/iter); last return %.3f\n", learner, iters, lc.Envs*lc.Steps, time.Since(start).Seconds(),
			time.Since(start).Seconds()/float64(iters), ret.Y[len(ret.Y)-1])
		return
	}
	lc := cfg.LearnerFor(evaluate)
	lc.FreezeActor, lc.Envs, lc.Iters, lc.HoldOut = true, cfg.EvalEnvs, iters, cfg.HoldOut
	lc.EvalAt = []int{lc.Envs * lc.Steps * max(1, iters/4), lc.Envs * lc.Steps * max(1, iters/2), lc.Envs * lc.Steps * iters}
	e, err := env.Make(cfg.Scenario)
	if err != nil {
		log.Fatal(err)
	}
	if rollouts > 0 {
		cfg.MC.Rollouts = rollouts
	}
	cfg.MC.FromPolicy = fromPolicy
	var weights []float32
	if frozen > 0 {
		pc := cfg.PPO
		pc.Scenario, pc.Critic, pc.Iters = cfg.Scenario, "central", frozen
		_, actor, err := ppo.Train(pc, seed, ppo.Hooks{})
		if err != nil {
			log.Fatal(err)
		}
		w, r, _ := smax.WinRate(cfg.Scenario, actor, 1, episodes, seed+1000)
		weights, err = actor.Weights()
		actor.Close()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("frozen policy: MAPPO after %d iterations (greedy win %.3f, return %.3f) in %.0fs\n", frozen, w, r, time.Since(start).Seconds())
		start = time.Now()
	}
	var set *m3apg.MCSet
	var t1 time.Time
	_, err = m3apg.Train(lc, seed, m3apg.Hooks{
		ActorInit: func(actor *ac.Net) error {
			if weights == nil {
				return nil
			}
			return actor.SetWeights(weights)
		},
		Ready: func(actor *ac.Net, held []bool) error {
			set, err = m3apg.MCTargets(e, m3apg.ActorPolicy(e, actor, 1), held, cfg.MC, seed)
			t1 = time.Now()
			if err == nil {
				total, joint, noise := set.Spread()
				fmt.Printf("Monte-Carlo set: %d rows in %.0fs; q_total_spread %.4f q_joint_spread %.4f mc_noise %.4f reward_hidden_share %.3f\n",
					len(set.Joints), t1.Sub(start).Seconds(), total, joint, noise, set.RewardHiddenShare())
			}
			return err
		},
		Budget: func(c *m3apg.Critic, steps, _ int) error {
			errs, err := set.Errors(c)
			fmt.Printf("%s at %d transitions (%.0fs): joint error seen %.4f unseen %.4f; Q error seen %.4f unseen %.4f (%d/%d rows)\n", evaluate, steps,
				time.Since(t1).Seconds(), errs.JointSeen, errs.JointUnseen, errs.Seen, errs.Unseen, errs.NSeen, errs.NUnseen)
			return err
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s policy evaluation: %d iterations × %d steps in %.0fs (%.2f s/iter)\n", evaluate, iters, lc.Envs*lc.Steps, time.Since(t1).Seconds(), time.Since(t1).Seconds()/float64(iters))
}

// probeOverride, when set, changes part smax's settings for the probe.
var probeOverride func(*expm3apg.SMAXConfig)

// iterPrinter prints every every-th iteration's progress message with the time since start.
type iterPrinter struct {
	every int
	start time.Time
}

func (p iterPrinter) Update(it int, msg string) {
	if it%p.every == 0 {
		fmt.Printf("iter %d %s (%.0fs)\n", it, msg, time.Since(p.start).Seconds())
	}
}

// timePPO trains c and prints the median wall time of its iterations after the first two (each the
// time between two OnIter calls: rollout, advantages and update), as bench/smax_mappo_peer.py does.
func timePPO(c ppo.Config, seed uint64, label string) {
	var times []float64
	last := time.Now()
	_, actor, err := ppo.Train(c, seed, ppo.Hooks{OnIter: func(int, map[string]float64) {
		now := time.Now()
		times = append(times, now.Sub(last).Seconds())
		last = now
	}})
	if err != nil {
		log.Fatal(err)
	}
	actor.Close()
	if len(times) < 3 {
		log.Fatalf("timing needs at least 3 iterations, got %d", len(times))
	}
	t := slices.Clone(times[2:])
	slices.Sort(t)
	med := t[len(t)/2]
	if len(t)%2 == 0 {
		med = (t[len(t)/2-1] + t[len(t)/2]) / 2
	}
	sp, _ := env.Make(c.Scenario)
	fmt.Printf("paperlab-mappo %s %s: median %.3f s/iter, %.0f env steps/s (%d games × %d steps, %d iterations after 2 warm-up; engine %s)\n",
		label, sp.Spec().Name, med, float64(c.Envs*c.Steps)/med, c.Envs, c.Steps, len(t), engine())
}

// engine is the compute engine's configuration ("onnx:cpu", …).
func engine() string {
	_, info, err := backend.Get()
	if err != nil {
		return "error: " + err.Error()
	}
	return info.Config
}

// probeSupervised builds part smax's Monte-Carlo set for the frozen policy (MAPPO after frozen
// iterations; 30 % of joint actions held out, the joint actions valued drawn from the policy) and
// regresses a fresh critic of the kind on the Monte-Carlo Q of its seen rows for iters Adam steps
// of 256 rows, printing its errors on the set (MCErrors) as it goes: whether the critic can rank a
// state's joint actions when it is handed their values, whatever TD learning does.
func probeSupervised(kind string, iters int, seed uint64, frozen, rollouts int) {
	cfg := expm3apg.SMAXConfigFor(exp.Default)
	if probeOverride != nil {
		probeOverride(&cfg)
	}
	if rollouts > 0 {
		cfg.MC.Rollouts = rollouts
	}
	cfg.MC.FromPolicy = true
	pc := cfg.PPO
	pc.Scenario, pc.Critic, pc.Iters = cfg.Scenario, "central", max(1, frozen)
	_, actor, err := ppo.Train(pc, seed, ppo.Hooks{})
	if err != nil {
		log.Fatal(err)
	}
	defer actor.Close()
	e, err := env.Make(cfg.Scenario)
	if err != nil {
		log.Fatal(err)
	}
	sp := e.Spec()
	r := rand.New(rand.NewPCG(seed, 7))
	held := make([]bool, int(math.Pow(float64(sp.Actions), float64(sp.Agents))))
	for k := range held {
		held[k] = r.Float64() < cfg.HoldOut
	}
	start := time.Now()
	set, err := m3apg.MCTargets(e, m3apg.ActorPolicy(e, actor, 1), held, cfg.MC, 1_000_000_000*seed)
	if err != nil {
		log.Fatal(err)
	}
	total, joint, noise := set.Spread()
	fmt.Printf("Monte-Carlo set: %d rows in %.0fs; q_total_spread %.4f q_joint_spread %.4f mc_noise %.4f reward_hidden_share %.3f\n",
		len(set.Joints), time.Since(start).Seconds(), total, joint, noise, set.RewardHiddenShare())
	be, _, err := backend.Get()
	if err != nil {
		log.Fatal(err)
	}
	lc := cfg.LearnerFor(kind)
	critic, err := m3apg.NewCritic(be, lc.Critic, sp.Agents, sp.Actions, sp.StateSize, seed+1)
	if err != nil {
		log.Fatal(err)
	}
	defer critic.Close()
	var train []int
	for k := range set.Joints {
		if !set.Held[k] {
			train = append(train, k)
		}
	}
	for it := 1; it <= iters; it++ {
		var st [][]float32
		var js [][]int
		var ys []float64
		for range 256 {
			k := train[r.IntN(len(train))]
			st, js, ys = append(st, set.Global[k]), append(js, set.Joints[k]), append(ys, set.Q[k])
		}
		if _, err := critic.Update(st, js, ys, nil); err != nil {
			log.Fatal(err)
		}
		if it%max(1, iters/8) == 0 || it == iters {
			errs, err := set.Errors(critic)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%s supervised, %d steps: ranking error seen %.4f unseen %.4f; Q error seen %.4f unseen %.4f\n", kind, it,
				errs.JointSeen, errs.JointUnseen, errs.Seen, errs.Unseen)
		}
	}
}
