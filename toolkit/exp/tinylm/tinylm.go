// Package tinylm is experiment "lm": train the tiny transformer (configuration R) with SFT on the
// synthetic tasks, show samples and their per-token log-probabilities, and measure the SFT model's
// calibration (AUC and ECE of its length-normalised likelihood).
//
// Tasks (the experiment's "methods"):
//   - addition: 2-digit a+b, answer digits reversed — the learning check of configuration R (≥ 95%
//     greedy exact match within the step budget);
//   - arith: the shared CAPO task (2–4 operations mod 10 with a step trace, 30% of problems hide an
//     operand), whose SFT model is the starting point of the CAPO/GRPO experiment.
package tinylm

import (
	"fmt"
	"maps"
	"math"
	"time"

	"github.com/paperlab/paperlab/datasets/arith"
	"github.com/paperlab/paperlab/toolkit/backend"
	"github.com/paperlab/paperlab/toolkit/exp"
	"github.com/paperlab/paperlab/toolkit/lm"
	"github.com/paperlab/paperlab/toolkit/lmtask"
	"github.com/paperlab/paperlab/toolkit/probe"
)

// Task is one training task.
type Task struct {
	Name string       `json:"name"`
	Data arith.Config `json:"data"`
	// Steps of SFT and the learning rate schedule for this task.
	SFT lm.SFTConfig `json:"sft"`
}

// Config of experiment "lm".
type Config struct {
	Model lm.Config `json:"model"`
	Tasks []Task    `json:"tasks"`
	// TrainSize problems per seed; EvalSize held-out problems (no prompt shared with training).
	TrainSize int `json:"train_size"`
	EvalSize  int `json:"eval_size"`
	// MaxNew tokens generated per answer.
	MaxNew int `json:"max_new"`
	// Bins of the reliability diagram and ECE.
	Bins int `json:"bins"`
	// ShowSamples is how many held-out samples of the first seed are kept for the table and heatmap.
	ShowSamples int `json:"show_samples"`
}

// ConfigFor returns the configuration at a scale.
func ConfigFor(s exp.Scale) Config {
	sft := func(steps int) lm.SFTConfig {
		o := lm.DefaultOpt(3e-3)
		o.WarmupSteps, o.TotalSteps, o.MinLRFrac, o.ClipNorm = steps/20, steps, 0.1, 1
		return lm.SFTConfig{Steps: steps, BatchSize: 64, Opt: o, EvalEvery: max(1, steps/10)}
	}
	c := Config{Model: lm.ConfigR(), TrainSize: 8000, EvalSize: 500, MaxNew: 12, Bins: 10, ShowSamples: 12,
		Tasks: []Task{{Name: "addition", Data: arith.Addition(), SFT: sft(3000)}, {Name: "arith", Data: arith.Default(), SFT: sft(3000)}}}
	if s == exp.Smoke {
		c.TrainSize, c.EvalSize = 1000, 64
		for i := range c.Tasks {
			c.Tasks[i].SFT = sft(40)
		}
	}
	return c
}

// Shown is one held-out sample kept for display.
type Shown struct {
	Prompt     string    `json:"prompt"`
	Completion string    `json:"completion"`
	Gold       string    `json:"gold"`
	Correct    bool      `json:"correct"`
	LPM        float64   `json:"lpm"`
	Tokens     []string  `json:"tokens"`
	LogProbs   []float32 `json:"logprobs"`
}

// Run trains every task with every seed.
func Run(opt exp.Options) (*exp.Result, error) {
	cfg, seeds, res, err := exp.Start("lm", opt, ConfigFor, nil)
	if err != nil {
		return nil, err
	}
	tok := lmtask.Tokenizer()
	for _, task := range cfg.Tasks {
		for _, seed := range seeds {
			start := time.Now()
			run, shown, err := runOne(cfg, task, seed, tok, opt)
			if err != nil {
				return nil, fmt.Errorf("task %s seed %d: %w", task.Name, seed, err)
			}
			run.Seconds = time.Since(start).Seconds()
			res.Runs = append(res.Runs, run)
			res.Timing["train_"+task.Name] += run.Seconds
			if seed == seeds[0] {
				if err := res.SetExtra("samples_"+task.Name, shown); err != nil {
					return nil, err
				}
			}
			fmt.Fprintf(opt.Log, "%s seed %d: exact match %.3f, AUC %.3f, ECE %.3f (%.0fs)\n", task.Name, seed,
				run.Final["exact_match"], run.Final["auc"], run.Final["ece"], run.Seconds)
		}
	}
	return res, nil
}

func runOne(cfg Config, task Task, seed uint64, tok *lm.Tokenizer, opt exp.Options) (exp.Run, []Shown, error) {
	train, err := lmtask.Generate(tok, task.Data, seed, cfg.TrainSize, nil)
	if err != nil {
		return exp.Run{}, nil, err
	}
	eval, err := lmtask.Generate(tok, task.Data, seed+10_000, cfg.EvalSize, train.PromptSet())
	if err != nil {
		return exp.Run{}, nil, err
	}
	m, err := lm.New(cfg.Model, tok, seed)
	if err != nil {
		return exp.Run{}, nil, err
	}
	sft := task.SFT
	sft.Seed = seed
	progress := opt.Progress(fmt.Sprintf("lm %s seed %d", task.Name, seed), sft.Steps)
	tr, curves, err := lm.TrainSFT(m, sft, train.Examples(), eval.Examples(), lm.SFTHooks{
		Progress: progress,
		OnEval: func(int) (map[string]float64, error) {
			em, err := lmtask.ExactMatch(m, eval, cfg.MaxNew)
			return map[string]float64{"exact_match": em}, err
		},
	})
	if err != nil {
		return exp.Run{}, nil, err
	}
	progress.Done(fmt.Sprintf("exact match %.3f", last(curves["exact_match"].Y)))
	if dir := opt.CheckpointDir(task.Name, seed); dir != "" {
		// With the optimizer state, so that training can resume (lm.Checkpoint.Trainer).
		data := task.Data
		prov := probe.Provenance{
			Experiment: "lm", Method: task.Name, Seed: seed, Scale: string(opt.Scale), Commit: exp.Commit(), Task: "arith", Arith: &data,
			Data: []probe.Draw{
				{Name: "train", Kind: "arith", Seed: seed, N: cfg.TrainSize},
				{Name: "held_out", Kind: "arith", Seed: seed + 10_000, N: cfg.EvalSize, Exclude: []string{"train"}},
			},
			Eval:     probe.Protocol{Samples: 1, Seed: seed, Temperature: 1, MaxNew: cfg.MaxNew, Bins: cfg.Bins},
			Training: sft,
		}
		if _, info, err := backend.Get(); err == nil {
			prov.Engine = info.Config
		}
		if err := probe.Save(dir, m, tr, prov); err != nil {
			return exp.Run{}, nil, err
		}
	}
	// Calibration of the SFT model: one sample per held-out prompt at temperature 1; confidence is
	// exp(lpm) = 1/perplexity ∈ (0,1].
	gens, err := m.Sample(eval.Prompts, lm.SampleConfig{MaxNew: cfg.MaxNew, Temperature: 1, Seed: seed})
	if err != nil {
		return exp.Run{}, nil, err
	}
	correct := eval.Correct(gens)
	conf := make([]float64, len(gens))
	for i, g := range gens {
		conf[i] = math.Exp(g.LPM)
	}
	final := map[string]float64{
		"exact_match": last(curves["exact_match"].Y),
		"eval_loss":   last(curves["eval_loss"].Y),
		"train_steps": float64(sft.Steps),
	}
	out := exp.Run{Method: task.Name, Seed: seed, Final: final, Curves: map[string]exp.Curve{}}
	for _, k := range []string{"train_loss", "eval_loss", "exact_match"} {
		out.Curves[k] = curves[k]
	}
	if err := calibration(conf, correct, cfg.Bins, &out); err != nil {
		return exp.Run{}, nil, err
	}
	var shown []Shown
	for i := 0; i < len(gens) && len(shown) < cfg.ShowSamples; i++ {
		s := Shown{Prompt: eval.Problems[i].Prompt, Completion: tok.Decode(gens[i].Tokens), Gold: eval.Problems[i].Completion(),
			Correct: correct[i], LPM: gens[i].LPM, LogProbs: gens[i].LogProbs}
		for _, id := range gens[i].Tokens {
			s.Tokens = append(s.Tokens, tok.TokenString(id))
		}
		shown = append(shown, s)
	}
	return out, shown, nil
}

// calibration adds sampled accuracy, AUC, ECE, Brier and the reliability bins to run.
func calibration(conf []float64, correct []bool, bins int, run *exp.Run) error {
	final, curves, err := exp.CalibrationMetrics(conf, correct, bins)
	if err != nil {
		return err
	}
	final["sample_accuracy"] = final["accuracy"]
	delete(final, "accuracy")
	maps.Copy(run.Final, final)
	maps.Copy(run.Curves, curves)
	return nil
}

func last(y []float64) float64 {
	if len(y) == 0 {
		return math.NaN()
	}
	return y[len(y)-1]
}

func init() {
	exp.Register(exp.Experiment{
		Name:        "lm",
		Description: "tiny transformer (configuration R): SFT on addition and the arithmetic task, samples, per-token log-probs, calibration",
		Seeds:       map[exp.Scale]int{exp.Smoke: 1, exp.Default: 3},
		Config:      func(s exp.Scale) any { return ConfigFor(s) },
		Run:         Run,
		Figures:     Figures,
	})
}
