package m3apg

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/exp/smax"
	"github.com/paperlab/paperlab/toolkit/marl/ac"
	"github.com/paperlab/paperlab/toolkit/marl/env"
	"github.com/paperlab/paperlab/toolkit/marl/m3apg"
	"github.com/paperlab/paperlab/toolkit/marl/ppo"
	"github.com/paperlab/paperlab/toolkit/nb"
	"github.com/paperlab/paperlab/toolkit/plot"
	"github.com/paperlab/paperlab/toolkit/repo"
	"github.com/paperlab/paperlab/toolkit/stats"
	"github.com/paperlab/paperlab/toolkit/track"
)

// SMAXConfig is part "smax": M3APG on the paper's kind of benchmark. On Scenario (SMAX 3m: three
// marines a side against SMAX's heuristic enemy; 8 actions each, 512 joint actions, of which an
// attack's worth depends on who else fires at the same target — focus fire, the interaction the push
// game lacks), per seed:
//
//   - learning runs (m3apg-2): Central-Q policy gradient with each critic kind of Learners (Learner;
//     no joint action held out, as in the paper) and MAPPO at the smax experiment's settings (PPO)
//     for the same environment steps; their training return (curve episodic_return, final: the
//     mean of its last FinalFrac of points; return_auc: the mean over the whole run, learning
//     speed) and greedy win rate on Episodes fresh battles (win_rate);
//   - policy evaluation (m3apg-1, m3apg-3): every critic kind learns the Q of the same frozen
//     policy (m3apg.Config.FreezeActor; MAPPO after FrozenIters iterations) for EvalIters rollouts of EvalEnvs ×
//     the learner's Steps with HoldOut of the joint actions never in its data, and is scored against
//     Monte-Carlo estimates of that policy's Q (MC, m3apg.MCTargets: built once per seed, shared by
//     every kind) at EvalPoints evenly spaced budgets — critic_error_{seen,unseen} (Q itself) and
//     joint_error_{seen,unseen} (Q centred on each state's mean: how it ranks joint actions, the
//     part a policy gradient's advantage reads), Monte-Carlo noise taken out (m3apg.MCErrors); for
//     scale q_total_spread and q_joint_spread (a constant's and a V(s)-only critic's errors), mc_noise
//     and reward_hidden_share (the share of Q's joint-action part the next reward does not show).
//
// Methods are named "smax-<kind>" (smax-m3apg, smax-mappo, smax-v-only…).
type SMAXConfig struct {
	// Scenario is the SMAX map ("smax:3m-norm": the global state normalised for the tanh critics).
	Scenario string `json:"scenario,omitempty"`
	// Learners are the critic kinds trained with a learning policy (with "mappo": marl/ppo's MAPPO).
	Learners []string `json:"learners,omitempty"`
	// Learner is the Central-Q learner (its Scenario and Critic.Kind set per run); PPO is MAPPO's
	// configuration, its Iters set so that it sees as many environment steps.
	Learner m3apg.Config `json:"learner"`
	PPO     ppo.Config   `json:"ppo"`
	// FinalFrac is the share of a learning run's last return points (iterations: a share of its
	// environment steps, whatever its iteration size) averaged into its final return; Episodes the
	// greedy battles each trained actor plays at the end.
	FinalFrac float64 `json:"final_frac,omitempty"`
	Episodes  int     `json:"episodes,omitempty"`
	// EvalEnvs × the learner's Steps × EvalIters transitions of policy evaluation, with HoldOut of
	// the joint actions held out and the critic scored at EvalPoints evenly spaced budgets.
	EvalEnvs   int     `json:"eval_envs,omitempty"`
	EvalIters  int     `json:"eval_iters,omitempty"`
	EvalPoints int     `json:"eval_points,omitempty"`
	HoldOut    float64 `json:"hold_out,omitempty"`
	// FrozenIters is how many MAPPO iterations (PPO's settings, the same seed) train the frozen
	// policy that policy evaluation evaluates (0: the learner's near-uniform initial actor).
	FrozenIters int `json:"frozen_iters,omitempty"`
	// MC sizes the Monte-Carlo test set (its Gamma is the learner's).
	MC m3apg.MCEval `json:"mc"`
	// GateWinRate is the greedy win rate smax-mappo must reach on the mean over seeds for the
	// return claims (the smax experiment's gate, fixed there before any run).
	GateWinRate float64 `json:"gate_win_rate,omitempty"`
}

// SMAXConfigFor is the SMAX part's preset at a scale.
//
// [UNVERIFIED] everything the paper's SMAC runs would fix is unread (abstract only). The learner
// takes JaxMARL's MAPPO settings for SMAX where they apply (γ 0.99, λ 0.95, 64 hidden units) and
// the push part's otherwise (actor Adam 1e-3, entropy 0.01, the critic's sizes); every learner
// sees the smax gate's 1.6 M environment steps (MAPPO: the gate's run itself). Central-Q is not a
// learner here (its one-hot critic is handicapped by construction; it is evaluated): the COMA-style
// critic and MAPPO are the baselines. Policy evaluation (probes of 2026-12-08, seed 1,
// bench/results/m3apg_smax_probe_2026-12-08.txt): under the near-uniform initial policy Q's
// joint-action part is mostly the next reward (reward_hidden_share 0.21) and barely above the
// Monte-Carlo noise, so the frozen policy is MAPPO after 10 iterations (greedy win ≈ 0.5, still
// stochastic: its data cover the joint actions it takes), the joint actions valued are the
// policy's own (MCEval.FromPolicy), with 64 rollouts each (16 left the joint part at 1.8× its
// noise at γ 0.99); the critics' errors stop moving by 150 k transitions, so 600 k are evaluated.
func SMAXConfigFor(s exp.Scale) SMAXConfig {
	const scenario = "smax:3m-norm"
	l := m3apg.Default(scenario, m3apg.M3APG)
	l.Envs, l.Steps, l.Iters, l.Hidden, l.Gamma, l.Lambda, l.HoldOut = 64, 16, 1600, 64, 0.99, 0.95, 0
	gate := smax.ConfigFor(exp.Default)
	c := SMAXConfig{Scenario: scenario, Learners: []string{m3apg.M3APG, m3apg.M3APGNoMI, m3apg.ComaQ, "mappo"},
		Learner: l, PPO: gate.PPO, FinalFrac: 0.05, Episodes: 128, EvalEnvs: 64, EvalIters: 600, EvalPoints: 16, HoldOut: 0.3, FrozenIters: 10,
		MC: m3apg.MCEval{States: 128, Episodes: 64, Every: 4, Joints: 16, Rollouts: 64, FromPolicy: true}, GateWinRate: gate.GateWinRate}
	if s == exp.Smoke {
		c.Learner.Envs, c.Learner.Steps, c.Learner.Iters, c.Learner.Hidden, c.Learner.Critic.Hidden = 4, 8, 4, 16, 16
		c.PPO = smax.ConfigFor(exp.Smoke).PPO
		c.Episodes, c.EvalEnvs, c.EvalIters, c.EvalPoints, c.FrozenIters = 4, 4, 8, 4, 2
		c.MC = m3apg.MCEval{States: 4, Episodes: 2, Every: 4, Joints: 4, Rollouts: 2, FromPolicy: true}
	}
	c.MC.Gamma = c.Learner.Gamma
	c.PPO.Iters = max(1, c.Learner.Iters*c.Learner.Envs*c.Learner.Steps/(c.PPO.Envs*c.PPO.Steps))
	return c
}

// Validate names a setting the part cannot run with ("" scenario: no part, nothing to check).
func (c SMAXConfig) Validate() error {
	if c.Scenario == "" {
		return nil
	}
	if _, err := env.Make(c.Scenario); err != nil {
		return fmt.Errorf("m3apg: smax.scenario: %w", err)
	}
	if len(c.Learners) == 0 || c.FinalFrac <= 0 || c.FinalFrac > 1 || c.Episodes < 1 || c.EvalEnvs < 1 || c.EvalIters < 1 || c.EvalPoints < 2 || c.EvalPoints > c.EvalIters || c.HoldOut <= 0 || c.HoldOut >= 1 {
		return fmt.Errorf("m3apg: smax: learners, final_frac in (0, 1], episodes, eval_envs, eval_iters ≥ 1, eval_points 2…eval_iters and hold_out in (0, 1) are needed")
	}
	for _, k := range c.Learners {
		if k != "mappo" && !slices.Contains(m3apg.Kinds, k) {
			return fmt.Errorf("m3apg: smax.learners: %q is neither mappo nor a critic kind (%v)", k, m3apg.Kinds)
		}
	}
	if c.FrozenIters < 0 || c.GateWinRate < 0 || c.GateWinRate > 1 {
		return fmt.Errorf("m3apg: smax: frozen_iters %d must be ≥ 0 and gate_win_rate %v in [0, 1]", c.FrozenIters, c.GateWinRate)
	}
	if err := c.MC.Validate(); err != nil {
		return fmt.Errorf("m3apg: smax.mc: %w", err)
	}
	l := c.Learner
	l.Scenario = c.Scenario
	if err := l.Validate(); err != nil {
		return fmt.Errorf("m3apg: smax.learner: %w", err)
	}
	return nil
}

// SMAXMethod is the SMAX part's name of a critic kind or "mappo".
func SMAXMethod(kind string) string { return "smax-" + kind }

// smaxKinds are the SMAX part's methods in run order: every critic kind (evaluated; a learner too
// when in Learners), then MAPPO when it learns.
func (c SMAXConfig) smaxKinds() []string {
	out := slices.Clone(hardCritics)
	if slices.Contains(c.Learners, "mappo") {
		out = append(out, "mappo")
	}
	return out
}

// budgets are the policy evaluation's checkpoints: EvalPoints evenly spaced iterations' steps.
func (c SMAXConfig) budgets() []int {
	per := c.EvalEnvs * c.Learner.Steps
	out := make([]int, c.EvalPoints)
	for i := range out {
		out[i] = per * max(1, (i+1)*c.EvalIters/c.EvalPoints)
	}
	return slices.Compact(out)
}

// LearnerFor is the Central-Q learner's configuration for a critic kind (the MI weight for m3apg only).
func (c SMAXConfig) LearnerFor(kind string) m3apg.Config {
	lc := c.Learner
	lc.Scenario = c.Scenario
	crit := m3apg.DefaultCritic(kind)
	crit.Hidden, crit.ActionDim, crit.EmbedDim, crit.Opt = c.Learner.Critic.Hidden, c.Learner.Critic.ActionDim, c.Learner.Critic.EmbedDim, c.Learner.Critic.Opt
	crit.EmbedUpdate, crit.EmbedWarmup, crit.JointInit, crit.ForwardLoss = c.Learner.Critic.EmbedUpdate, c.Learner.Critic.EmbedWarmup, c.Learner.Critic.JointInit, c.Learner.Critic.ForwardLoss
	if kind == m3apg.M3APG {
		crit.MICoef = c.Learner.Critic.MICoef
	}
	lc.Critic = crit
	return lc
}

// runSMAX is part "smax" for one seed: every method's learning run (Learners) and policy
// evaluation (critic kinds), the Monte-Carlo test set built once.
func runSMAX(cfg SMAXConfig, seed uint64, res *exp.Result, opt exp.Options) error {
	e, err := env.Make(cfg.Scenario)
	if err != nil {
		return err
	}
	var set *m3apg.MCSet
	var setHeld []bool
	var frozen []float32 // the frozen policy's weights (nil: the initial actor)
	frozenWin := math.NaN()
	if cfg.FrozenIters > 0 {
		pc := cfg.PPO
		pc.Scenario, pc.Critic, pc.Iters = cfg.Scenario, "central", cfg.FrozenIters
		_, actor, err := ppo.Train(pc, seed, ppo.Hooks{Progress: opt.Progress(fmt.Sprintf("m3apg seed %d: the frozen policy (MAPPO)", seed), pc.Iters)})
		if actor != nil {
			defer actor.Close()
		}
		if err != nil {
			return fmt.Errorf("the frozen policy: %w", err)
		}
		if frozenWin, _, err = smax.WinRate(cfg.Scenario, actor, pc.ObsScale, cfg.Episodes, 2_000_000+1000*seed); err != nil {
			return err
		}
		if frozen, err = actor.Weights(); err != nil {
			return err
		}
	}
	for _, kind := range cfg.smaxKinds() {
		method := SMAXMethod(kind)
		run := exp.Run{Method: method, Seed: seed, Final: map[string]float64{}, Curves: map[string]exp.Curve{}}
		label := fmt.Sprintf("m3apg seed %d: %s", seed, method)
		t0 := time.Now()
		if kind != "mappo" {
			if cfg.FrozenIters > 0 {
				run.Final["frozen_win_rate"] = frozenWin
			}
			if err := smaxEvaluate(cfg, kind, seed, e, frozen, &set, &setHeld, &run, opt, label); err != nil {
				return fmt.Errorf("%s seed %d policy evaluation: %w", method, seed, err)
			}
		}
		if slices.Contains(cfg.Learners, kind) {
			if err := smaxLearn(cfg, kind, seed, &run, opt.Progress(label, cfg.Learner.Iters)); err != nil {
				return fmt.Errorf("%s seed %d: %w", method, seed, err)
			}
		}
		fmt.Fprintf(opt.Log, "seed %d %-16s return %.3f win %.2f; joint error seen %.3f unseen %.3f, Q error seen %.3f unseen %.3f (%.0fs)\n", seed, method,
			run.Final["return"], run.Final["win_rate"], run.Final["joint_error_seen"], run.Final["joint_error_unseen"],
			run.Final["critic_error_seen"], run.Final["critic_error_unseen"], time.Since(t0).Seconds())
		run.Seconds = time.Since(t0).Seconds()
		res.Timing[method] += run.Seconds
		res.Runs = append(res.Runs, run)
	}
	return nil
}

// smaxEvaluate is one critic kind's policy evaluation on SMAX: the frozen policy's rollouts (frozen:
// its weights, nil for the learner's initial actor) train the critic, which is scored at every budget and at the end against the Monte-Carlo set
// (*set, built from the first kind's frozen actor and hold-out, which every kind shares: the same
// seed draws them; a kind that drew others is an error).
func smaxEvaluate(cfg SMAXConfig, kind string, seed uint64, e env.Env, frozen []float32, set **m3apg.MCSet, setHeld *[]bool, run *exp.Run, opt exp.Options, label string) error {
	lc := cfg.LearnerFor(kind)
	lc.FreezeActor, lc.Envs, lc.Iters, lc.HoldOut, lc.EvalAt = true, cfg.EvalEnvs, cfg.EvalIters, cfg.HoldOut, cfg.budgets()
	add := track.Curves(run.Curves).Add
	score := func(c *m3apg.Critic, x float64) (m3apg.MCErrors, error) {
		errs, err := (*set).Errors(c)
		if err != nil {
			return errs, err
		}
		for k, v := range map[string]float64{"critic_error_seen": errs.Seen, "critic_error_unseen": errs.Unseen, "joint_error_seen": errs.JointSeen, "joint_error_unseen": errs.JointUnseen} {
			add("eval/"+k, x, v)
		}
		return errs, nil
	}
	hooks := m3apg.Hooks{
		Progress: opt.Progress(label+" (policy evaluation)", lc.Iters),
		ActorInit: func(actor *ac.Net) error {
			if frozen == nil {
				return nil
			}
			return actor.SetWeights(frozen)
		},
		Ready: func(actor *ac.Net, held []bool) error {
			if *set != nil {
				if !slices.Equal(held, *setHeld) {
					return fmt.Errorf("its hold-out differs from the Monte-Carlo set's (the seed should fix it)")
				}
				return nil
			}
			t0 := time.Now()
			// Seeds 10⁹ apart: no two training seeds share an episode start or a rollout's random numbers.
			s, err := m3apg.MCTargets(e, m3apg.ActorPolicy(e, actor, 1), held, cfg.MC, 1_000_000_000*seed)
			if err != nil {
				return fmt.Errorf("Monte-Carlo targets: %w", err)
			}
			*set, *setHeld = s, slices.Clone(held)
			fmt.Fprintf(opt.Log, "seed %d: Monte-Carlo set of %d rows (%d states) in %.0fs\n", seed, len(s.Joints), s.State[len(s.State)-1]+1, time.Since(t0).Seconds())
			return nil
		},
		Budget: func(c *m3apg.Critic, steps, _ int) error {
			_, err := score(c, float64(steps))
			return err
		},
		Trained: func(c *m3apg.Critic, _ *ac.Net, _ []bool) error {
			errs, err := (*set).Errors(c)
			if err != nil {
				return err
			}
			run.Final["critic_error_seen"], run.Final["critic_error_unseen"] = errs.Seen, errs.Unseen
			run.Final["joint_error_seen"], run.Final["joint_error_unseen"] = errs.JointSeen, errs.JointUnseen
			run.Final["mc_rows_seen"], run.Final["mc_rows_unseen"] = float64(errs.NSeen), float64(errs.NUnseen)
			return nil
		},
	}
	ev, err := m3apg.Train(lc, seed, hooks)
	if err != nil {
		return err
	}
	for k, cv := range ev {
		if k != "episodic_return" { // the frozen policy's return: one number, kept as a final below
			run.Curves["eval/"+k] = cv.Binned(evalDiagnosticPoints)
		}
	}
	run.Final["frozen_return"] = lastMean(ev["episodic_return"], len(ev["episodic_return"].Y))
	run.Final["q_total_spread"], run.Final["q_joint_spread"], run.Final["mc_noise"] = (*set).Spread()
	if h := (*set).RewardHiddenShare(); !math.IsNaN(h) { // NaN: no joint-action part beyond the noise to share out
		run.Final["reward_hidden_share"] = h
	}
	return nil
}

// smaxLearn is one learning run on SMAX (a Central-Q learner with the critic kind, or MAPPO), then
// its greedy win rate on Episodes fresh battles (seeds 2,000,000 + 1000·seed + k, as the smax
// experiment's).
func smaxLearn(cfg SMAXConfig, kind string, seed uint64, run *exp.Run, progress track.Progress) error {
	var curves track.Curves
	var actor *ac.Net
	var err error
	scale := float32(1)
	if kind == "mappo" {
		pc := cfg.PPO
		pc.Scenario, pc.Critic = cfg.Scenario, "central"
		scale = pc.ObsScale
		curves, actor, err = ppo.Train(pc, seed, ppo.Hooks{Progress: progress})
	} else {
		lc := cfg.LearnerFor(kind)
		curves, err = m3apg.Train(lc, seed, m3apg.Hooks{Progress: progress, Trained: func(_ *m3apg.Critic, a *ac.Net, _ []bool) error {
			w, r, err := smax.WinRate(cfg.Scenario, a, 1, cfg.Episodes, 2_000_000+1000*seed)
			run.Final["win_rate"], run.Final["greedy_return"] = w, r
			return err
		}})
	}
	if actor != nil {
		defer actor.Close()
		w, r, err := smax.WinRate(cfg.Scenario, actor, scale, cfg.Episodes, 2_000_000+1000*seed)
		if err != nil {
			return err
		}
		run.Final["win_rate"], run.Final["greedy_return"] = w, r
	}
	if err != nil {
		return err
	}
	for k, cv := range curves {
		run.Curves[k] = cv
	}
	ret := curves["episodic_return"]
	run.Final["return"] = lastMean(ret, max(1, int(math.Round(cfg.FinalFrac*float64(len(ret.Y))))))
	run.Final["return_auc"] = stats.MeanTermwise(ret.Y)
	if cv := curves["episodic_return"]; len(cv.Y) > 0 {
		run.Final["return_start"] = cv.Y[0]
	}
	return nil
}

// pushRan reports whether a result holds the push part (its Central-Q runs).
func pushRan(res *exp.Result) bool {
	_, ok := res.Summary[m3apg.CentralQ]
	return ok
}

// smaxRan reports whether a result holds the SMAX part (its M3APG runs).
func smaxRan(res *exp.Result) bool {
	_, ok := res.Summary[SMAXMethod(m3apg.M3APG)]
	return ok
}

// Thresholds of the SMAX part's own room checks (the others are the push part's: ConvergedFall,
// LearnsGain, HiddenShare, ReturnTailShare).
const (
	// SMAXJointSignal: the Monte-Carlo set shows a joint-action part of Q when its spread
	// (q_joint_spread, noise taken out) is at least this many times the centred estimates' RMS
	// standard error (mc_noise), on the lower end of the 95 % interval over seeds. [UNVERIFIED]
	// PaperLab's choice: 2, a joint-action signal twice its measurement noise.
	SMAXJointSignal = 2.0
	// SMAXWinCeiling: the win-rate comparison with the baselines' front needs the front's mean
	// greedy win rate below it. [UNVERIFIED] PaperLab's choice: 0.95.
	SMAXWinCeiling = 0.95
)

// Room names of the SMAX part.
func smaxConvergedName(kind, metric string) string {
	return fmt.Sprintf("smax-converged-%s-%s", kind, metric)
}
func smaxLearnsName(kind string) string      { return fmt.Sprintf("smax-%s-ranks-seen-joint-actions", kind) }
func smaxWhere() string                      { return "SMAX 3m" }
func smaxSignalName() string                 { return "smax-q-depends-on-the-joint-action" }
func smaxHidesName() string                  { return "smax-reward-hides-joint-effect" }
func smaxLearnsQName(kind string) string     { return fmt.Sprintf("smax-%s-learns-seen-q", kind) }
func smaxCeilingName() string                { return "smax-front-below-win-ceiling" }
func smaxGateName() string                   { return "smax-gate-mappo-wins" }
func smaxReturnSettled(method string) string { return returnSettledOn(method, smaxWhere()) }
func smaxReturnLearns(method string) string  { return returnLearnsOn(method, smaxWhere()) }

// smaxRoom are the SMAX part's room checks:
//
//   - smax-converged-<kind>-<metric>: the kind's policy-evaluation error curve (eval/<metric>) has
//     stopped moving over its last doubling (as the push part's converged-…: exp.FallPerDoubling,
//     ConvergedFall);
//   - smax-<kind>-ranks-seen-joint-actions: the critic ranks the joint actions it was trained on
//     better than one that ignores them (1 − joint_error_seen ÷ q_joint_spread above LearnsGain, on
//     the lower end of the interval: exp.RoomAchieves);
//   - smax-q-depends-on-the-joint-action: the Monte-Carlo estimates show a joint-action part of Q
//     (q_joint_spread ÷ mc_noise above SMAXJointSignal, lower end);
//   - smax-reward-hides-joint-effect: most of Q's joint-action part is not in the next reward
//     (reward_hidden_share at least HiddenShare on the mean over seeds) — the MI term's room;
//   - the learning runs' training return settled and above its start (returnChecksOn).
func smaxRoom(res *exp.Result, cfg SMAXConfig) []exp.RoomCheck {
	var room []exp.RoomCheck
	m := func(kind string) string { return SMAXMethod(kind) }
	// learned: the share 1 − err ÷ spread of the scale's error the critic removes on seen joint
	// actions, on the lower end of its interval over seeds.
	learned := func(name, kind, err, spread, why, scale string) exp.RoomCheck {
		return exp.RoomAchieves(res.Seeds, name, exp.Test{Op: exp.Above, X: LearnsGain},
			fmt.Sprintf("%s. Measured per seed: 1 − %s ÷ %s (%s), the share of %s it removes on seen joint actions. Needs: the lower "+
				"end of its 95 %% interval over seeds above %.2f ([UNVERIFIED] PaperLab's choice, as on the push game).", why, err, spread, m(kind), scale, LearnsGain),
			fmt.Sprintf("no %s or %s for %s", err, spread, m(kind)), LearnedShare(res, m(kind), err, spread))
	}
	for _, kind := range hardCritics {
		for _, metric := range []string{"joint_error_unseen", "critic_error_unseen"} {
			key := "eval/" + metric
			room = append(room, exp.RoomSettled(res.Seeds, smaxConvergedName(kind, metric), ConvergedFall,
				fmt.Sprintf("Critic errors compared at the end of policy evaluation say which critic evaluates the policy better only once "+
					"they have stopped moving. Measured per seed, signed: exp.FallPerDoubling of %s (against the Monte-Carlo set, at %d evenly "+
					"spaced budgets) over its last doubling, as a share of its level. Needs: the mean over seeds within ±%.2f "+
					"([UNVERIFIED] PaperLab's choice, as on the push game).", key, cfg.EvalPoints, ConvergedFall),
				fmt.Sprintf("no %s curve for %s", key, m(kind)), res.CurveMeasure(m(kind), key, exp.FallPerDoubling)))
		}
		room = append(room, learned(smaxLearnsQName(kind), kind, "critic_error_seen", "q_total_spread",
			"A critic's error on held-out joint actions' Q is a comparison of critics only if it learns the Q of the ones it was trained on",
			"the best constant's error"))
		if kind == m3apg.VOnly {
			continue // ignores the joint action: ranks nothing, by construction
		}
		room = append(room, learned(smaxLearnsName(kind), kind, "joint_error_seen", "q_joint_spread",
			"A critic is compared on held-out joint actions only if it learns to rank the ones it was trained on",
			"a V(s)-only critic's ranking error"))
	}
	ref := m(m3apg.M3APG)
	room = append(room,
		exp.RoomAchieves(res.Seeds, smaxSignalName(), exp.Test{Op: exp.Above, X: SMAXJointSignal},
			fmt.Sprintf("Ranking joint actions can be measured only where Q depends on them beyond the Monte-Carlo noise (under the "+
				"frozen policy, Q is mostly the state's worth). Measured per seed on the Monte-Carlo set (%d states × %d "+
				"joint actions × %d rollouts, common random numbers): q_joint_spread ÷ mc_noise, the RMS of Q centred on each state's "+
				"mean (noise taken out) over the centred estimates' RMS standard error. Needs: the lower end of its 95 %% interval "+
				"over seeds above %g ([UNVERIFIED] PaperLab's choice).", cfg.MC.States, cfg.MC.Joints, cfg.MC.Rollouts, SMAXJointSignal),
			"no q_joint_spread or mc_noise", func(seed uint64) (float64, bool) {
				j, ok1 := res.Final(ref, "q_joint_spread", seed)
				n, ok2 := res.Final(ref, "mc_noise", seed)
				return j / n, ok1 && ok2 && n > 0
			}),
		exp.RoomOn(res.Seeds, smaxHidesName(), exp.AtLeast(HiddenShare),
			fmt.Sprintf("The MI term gives the embedding the transition s → s′; it can add to the value loss only where the reward does not "+
				"already tell the critic what a joint action does (an attack's damage is paid at once; a move's worth shows later). "+
				"Measured per seed on the Monte-Carlo set: the share of Q's centred (joint-action) part left once the centred immediate "+
				"reward is taken off (m3apg.MCSet.RewardHiddenShare, noise taken out). Needs: the mean over seeds at least %.2f "+
				"([UNVERIFIED] PaperLab's choice, as on the push game).", HiddenShare),
			"no reward_hidden_share", func(seed uint64) (float64, bool) {
				v, ok := res.Final(ref, "reward_hidden_share", seed)
				return v, ok && !math.IsNaN(v)
			}))
	if base := smaxBaselines(cfg); len(base) > 0 {
		f := res.FrontOf(base, "win_rate", false)
		room = append(room, exp.RoomOn(res.Seeds, smaxCeilingName(), exp.Test{Op: exp.Below, X: SMAXWinCeiling},
			fmt.Sprintf("Whether M3APG wins more battles than the baselines' front can show only below the ceiling of 1: the front's "+
				"(%s, the baseline with the best mean win rate) greedy win rate on the mean over seeds must stay below %g "+
				"([UNVERIFIED] PaperLab's choice: the gate's 0.9 leaves the front little room above it; a front at the ceiling "+
				"leaves none).", f.Chosen, SMAXWinCeiling),
			"no win_rate for "+f.Chosen, func(seed uint64) (float64, bool) { return res.Final(f.Chosen, "win_rate", seed) }))
	}
	if slices.Contains(cfg.Learners, "mappo") {
		room = append(room, exp.RoomOn(res.Seeds, smaxGateName(), exp.AtLeast(cfg.GateWinRate),
			fmt.Sprintf("Learning runs are compared on SMAX only where plain MAPPO learns to win there: smax-mappo (the smax experiment's gate "+
				"settings) must reach a greedy win rate of %g against the heuristic enemy (%d battles per seed) on the mean over seeds "+
				"(the smax experiment's gate, fixed before any run).", cfg.GateWinRate, cfg.Episodes),
			"no smax-mappo win_rate", func(seed uint64) (float64, bool) { return res.Final(m("mappo"), "win_rate", seed) }))
	}
	var learners []string
	for _, k := range cfg.Learners {
		learners = append(learners, m(k))
	}
	return append(room, returnChecksOn(res, learners, "episodic_return", smaxWhere())...)
}

// smaxBaselines are the SMAX learning runs' policy-gradient baselines (m3apg-2 reads M3APG against
// their front): Central-Q, the COMA-style critic's learner and MAPPO, where they ran.
func smaxBaselines(cfg SMAXConfig) []string {
	var out []string
	for _, k := range []string{m3apg.CentralQ, m3apg.ComaQ, "mappo"} {
		if slices.Contains(cfg.Learners, k) {
			out = append(out, SMAXMethod(k))
		}
	}
	return out
}

// smaxClaims are the SMAX part's claims. SMAX is the paper's own kind of benchmark, so its readings
// of m3apg-1, -2 and -3 come first and read those headlines wherever their room checks pass
// (HeadlineIfTestable: where they fail, the push game's readings do — a rule fixed before the
// runs): M3APG ranks held-out joint actions better than the COMA-style critic (m3apg-1), and than
// the V(s) floor and Central-Q (structural); its error on held-out joint actions' Q below the
// COMA-style critic's; the MI term lowering the ranking error on held-out joint actions (m3apg-3);
// M3APG's learner learning faster than the COMA-style critic's — the same Central-Q learner and
// settings, the critic the only difference (m3apg-2: mean training return over the run) — and, as
// context, than the MAPG baselines' front (MAPPO at JaxMARL's tuned settings beside the untuned
// Central-Q learners) and winning more battles than it; the MI term raising the learning speed.
func smaxClaims(res *exp.Result, cfg SMAXConfig) []exp.Claim {
	m := func(kind string) string { return SMAXMethod(kind) }
	mm, nomi, coma, cq, vOnly := m(m3apg.M3APG), m(m3apg.M3APGNoMI), m(m3apg.ComaQ), m(m3apg.CentralQ), m(m3apg.VOnly)
	conv := func(metric string, kinds ...string) []string {
		var out []string
		for _, k := range kinds {
			out = append(out, smaxConvergedName(k, metric))
		}
		return out
	}
	joint := func(b, kind string) exp.Claim {
		c := res.Check(fmt.Sprintf("SMAX 3m: M3APG ranks held-out joint actions better than %s (ranking error against Monte-Carlo Q)", b),
			fmt.Sprintf("joint_err_unseen(%s) − joint_err_unseen(%s)", b, mm), exp.Positive, res.Diff(b, "joint_error_unseen", mm, "joint_error_unseen")).
			Needs(conv("joint_error_unseen", m3apg.M3APG, kind)...).Needs(smaxSignalName(), smaxLearnsName(m3apg.M3APG))
		if kind != m3apg.VOnly {
			c = c.Needs(smaxLearnsName(kind))
		}
		return c
	}
	out := []exp.Claim{
		joint(coma, m3apg.ComaQ).HeadlineIfTestable("m3apg-1"),
		joint(vOnly, m3apg.VOnly),
		joint(cq, m3apg.CentralQ).Structural(oneHotUnseen),
		res.Check("SMAX 3m: M3APG's error on held-out joint actions' Q is below the COMA-style critic's", fmt.Sprintf("err_unseen(%s) − err_unseen(%s)", coma, mm),
			exp.Positive, res.Diff(coma, "critic_error_unseen", mm, "critic_error_unseen")).
			Needs(conv("critic_error_unseen", m3apg.M3APG, m3apg.ComaQ)...).Needs(smaxLearnsQName(m3apg.M3APG), smaxLearnsQName(m3apg.ComaQ)),
		res.Check("SMAX 3m: the MI term lowers the ranking error on held-out joint actions", fmt.Sprintf("joint_err_unseen(%s) − joint_err_unseen(%s)", nomi, mm),
			exp.Positive, res.Diff(nomi, "joint_error_unseen", mm, "joint_error_unseen")).
			Needs(conv("joint_error_unseen", m3apg.M3APG, m3apg.M3APGNoMI)...).
			Needs(smaxSignalName(), smaxHidesName(), smaxLearnsName(m3apg.M3APG), smaxLearnsName(m3apg.M3APGNoMI)).HeadlineIfTestable("m3apg-3"),
	}
	learns := func(methods ...string) []string {
		var out []string
		for _, x := range methods {
			out = append(out, smaxReturnLearns(x))
		}
		return out
	}
	if !slices.Contains(cfg.Learners, m3apg.M3APG) {
		return out
	}
	if slices.Contains(cfg.Learners, m3apg.ComaQ) {
		out = append(out, res.Check("SMAX 3m: M3APG's learner learns faster than the COMA-style critic's (mean training return over the run)",
			fmt.Sprintf("return_auc(%s) − return_auc(%s)", mm, coma), exp.Positive, res.Diff(mm, "return_auc", coma, "return_auc")).
			Needs(learns(mm, coma)...).Needs(smaxGateName()).HeadlineIfTestable("m3apg-2"))
	}
	if base := smaxBaselines(cfg); len(base) > 0 {
		tuned := "MAPPO trains at JaxMARL's tuned settings for SMAX, the Central-Q learners at the push part's untuned ones: a gap to MAPPO mixes tuning with the critic; the informative comparison is with the COMA-style critic's learner"
		f := res.FrontOf(base, "return_auc", false)
		c := exp.CheckOn(f.CompareSeeds, "SMAX 3m: M3APG's learner learns faster than the MAPG baselines' front (mean training return over the run)",
			fmt.Sprintf("return_auc(%s) − return_auc(best baseline by mean)", mm), exp.Positive, res.Diff(mm, "return_auc", f.Chosen, "return_auc"))
		c.Notes = append(c.Notes, f.Note(), tuned)
		out = append(out, c.Needs(learns(mm, f.Chosen)...).Needs(smaxGateName()))
		w := res.FrontOf(base, "win_rate", false)
		c = exp.CheckOn(w.CompareSeeds, "SMAX 3m: M3APG wins more battles than the MAPG baselines' front (greedy, at the end)",
			fmt.Sprintf("win_rate(%s) − win_rate(best baseline by mean)", mm), exp.Positive, res.Diff(mm, "win_rate", w.Chosen, "win_rate"))
		c.Notes = append(c.Notes, w.Note(), tuned)
		out = append(out, c.Needs(smaxReturnSettled(mm), smaxReturnSettled(w.Chosen)).Needs(learns(mm, w.Chosen)...).Needs(smaxGateName(), smaxCeilingName()))
	}
	if slices.Contains(cfg.Learners, m3apg.M3APGNoMI) {
		out = append(out, res.Check("SMAX 3m: the MI term makes the learner learn faster (mean training return over the run)", fmt.Sprintf("return_auc(%s) − return_auc(%s)", mm, nomi),
			exp.Positive, res.Diff(mm, "return_auc", nomi, "return_auc")).Needs(learns(mm, nomi)...).Needs(smaxGateName()))
	}
	return out
}

// smaxFigures draws the SMAX part: the critics' joint error and Q error on held-out and seen joint
// actions against the policy evaluation's budget (seed bands; the convergence checks read the last
// doubling), and the learning runs' training return (seed bands) with their greedy win rates.
func smaxFigures(res *exp.Result, cfg SMAXConfig, figs *exp.Figs) error {
	var kinds, learners []string // M3APG and the baselines (at most 4 bands a panel); the learners
	for _, k := range []string{m3apg.M3APG, m3apg.ComaQ, m3apg.CentralQ, m3apg.VOnly} {
		kinds = append(kinds, SMAXMethod(k))
	}
	for _, k := range cfg.Learners {
		learners = append(learners, SMAXMethod(k))
	}
	mi := []string{SMAXMethod(m3apg.M3APG), SMAXMethod(m3apg.M3APGNoMI)}
	frozen := "the near-uniform initial policy"
	if cfg.FrozenIters > 0 {
		frozen = fmt.Sprintf("MAPPO after %d iterations", cfg.FrozenIters)
	}
	f, err := plot.Panels(fmt.Sprintf("SMAX 3m, policy evaluation of a frozen policy (%s): critic error against Monte-Carlo Q (noise taken out)", frozen),
		"transitions seen (log scale)", "RMS error", []plot.Panel{
			{Title: "held-out joint actions: ranking (Q centred per state)", Series: exp.CurveSeries(res, "eval/joint_error_unseen", kinds)},
			{Title: "held-out: ranking, with and without MI", Series: exp.CurveSeries(res, "eval/joint_error_unseen", mi)},
			{Title: "seen joint actions: ranking", Series: exp.CurveSeries(res, "eval/joint_error_seen", kinds)},
			{Title: "held-out joint actions: Q itself", Series: exp.CurveSeries(res, "eval/critic_error_unseen", kinds)},
		}, plot.BandOpts{LogX: true})
	if err := figs.Add(f, err, "smax_critic_error"); err != nil {
		return err
	}
	var subtitle []string
	for _, m := range learners {
		if s, ok := res.Summary[m]; ok {
			if w, ok := s["win_rate"]; ok {
				subtitle = append(subtitle, fmt.Sprintf("%s %.2f", m, w.Mean))
			}
		}
	}
	var base, ablation []string // M3APG with the baselines, and with and without MI
	for _, m := range learners {
		if m != SMAXMethod(m3apg.M3APGNoMI) {
			base = append(base, m)
		}
		if m == SMAXMethod(m3apg.M3APG) || m == SMAXMethod(m3apg.M3APGNoMI) {
			ablation = append(ablation, m)
		}
	}
	f, err = plot.Panels("SMAX 3m against the heuristic enemy: training return (a won battle scores > 1.5)", "environment steps", "return", []plot.Panel{
		{Title: "M3APG and the MAPG baselines", Series: exp.CurveSeries(res, "episodic_return", base)},
		{Title: "with and without MI", Series: exp.CurveSeries(res, "episodic_return", ablation)},
	}, plot.BandOpts{})
	if err == nil && len(subtitle) > 0 {
		f.Subtitle = "greedy win rate at the end (mean over seeds): " + strings.Join(subtitle, ", ")
	}
	return figs.Add(f, err, "smax_returns")
}

// ShowSMAX shows part smax of the result notebook 60 showed (exp.NotebookResult("m3apg") at
// $PAPERLAB_SCALE): its figures, its methods' final metrics, and its room checks and claims (the
// SMAX ones) — or says that the result holds no SMAX part (not an error: `paperlab m3apg -part smax`
// runs it).
func ShowSMAX() error {
	res, err := exp.NotebookResult("m3apg")
	if err != nil {
		nb.Markdown(fmt.Sprintf("No m3apg result at this scale (%v): run notebook 60 or `paperlab m3apg` first.", err))
		return nil
	}
	if !smaxRan(res) {
		nb.Markdown(fmt.Sprintf("The m3apg result in `%s` (made %s) holds no SMAX part: `paperlab m3apg -part smax` runs it.", repo.ShowPath(res.Dir), res.Started))
		return nil
	}
	var cfg Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		return err
	}
	if err := smaxFigures(res, cfg.SMAX, &exp.Figs{}); err != nil {
		return err
	}
	isSMAX := func(m string) bool { return strings.HasPrefix(m, "smax-") }
	if h, rows := exp.SummaryTableOf(res, isSMAX, []string{"return", "win_rate", "joint_error_unseen", "joint_error_seen", "critic_error_unseen", "critic_error_seen",
		"q_joint_spread", "mc_noise", "reward_hidden_share", "frozen_win_rate"}); len(rows) > 0 {
		nb.Table(h, rows)
	}
	j, err := exp.JudgeResult(res)
	if err != nil {
		return err
	}
	var room []exp.RoomCheck
	for _, r := range j.Room {
		if strings.HasPrefix(r.Name, "smax-") || strings.Contains(r.Name, "("+smaxWhere()+")") {
			room = append(room, r)
		}
	}
	var claims []exp.Claim
	for _, c := range j.Claims {
		if strings.HasPrefix(c.Text, smaxWhere()) {
			claims = append(claims, c)
		}
	}
	nb.Markdown(fmt.Sprintf("**Room checks of part smax** (%d seeds): %d of %d fail%s.", len(res.Seeds), len(exp.FailedRoom(room)), len(room),
		map[bool]string{true: " — a claim needing one reads **untestable here**", false: ""}[len(exp.FailedRoom(room)) > 0]))
	nb.Table(exp.RoomTable(room))
	nb.Markdown("**Claims of part smax**, paired per seed: mean paired value with its 95 % t-interval.")
	nb.Table(exp.ClaimsTable(claims))
	nb.Sync()
	return nil
}
